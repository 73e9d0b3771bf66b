import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TokenStore from "../../src/TokenStore.js"
import { contractSuite, key, tokens } from "./contract.js"

contractSuite("memory", (options) => Layer.effect(TokenStore.TokenStore, TokenStore.makeMemory(options)))

describe("TokenStore.layerMemory", () => {
  it.effect("keeps records for the life of one build, and starts empty in the next", () =>
    Effect.gen(function*() {
      const written = yield* Effect.provide(
        Effect.flatMap(TokenStore.TokenStore, (s) => Effect.zipRight(s.setTokens(key, tokens), s.getTokens(key))),
        TokenStore.layerMemory
      )
      expect(Option.isSome(written)).toBe(true)
      const read = yield* Effect.provide(
        Effect.flatMap(TokenStore.TokenStore, (s) => s.getTokens(key)),
        TokenStore.layerMemory
      )
      expect(Option.isNone(read)).toBe(true)
    }))
})
