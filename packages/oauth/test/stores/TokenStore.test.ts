import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TokenStore from "../../src/TokenStore.js"
import { contractSuite, key, tokens } from "./contract.js"

contractSuite("memory", (options) => Layer.effect(TokenStore.TokenStore, TokenStore.makeMemory(options)))

describe("TokenStore.layerMemory", () => {
  it.effect("is a fresh store per build", () =>
    Effect.gen(function*() {
      yield* Effect.provide(Effect.flatMap(TokenStore.TokenStore, (s) => s.setTokens(key, tokens)), TokenStore.layerMemory)
      const read = yield* Effect.provide(Effect.flatMap(TokenStore.TokenStore, (s) => s.getTokens(key)), TokenStore.layerMemory)
      expect(Option.isNone(read)).toBe(true)
    }))
})
