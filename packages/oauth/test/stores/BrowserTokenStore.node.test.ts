import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as BrowserTokenStore from "../../src/BrowserTokenStore.js"
import * as TokenStore from "../../src/TokenStore.js"

/** Every module `entry` reaches through relative imports, and its bare imports. */
const importGraph = (entry: string) => {
  const seen = new Set<string>()
  const bare = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    const source = Fs.readFileSync(file, "utf8")
    for (const [, specifier] of source.matchAll(/(?:import|export)[^"']*?from\s+["']([^"']+)["']/g)) {
      if (specifier!.startsWith(".")) visit(Path.resolve(Path.dirname(file), specifier!.replace(/\.js$/, ".ts")))
      else bare.add(specifier!)
    }
  }
  visit(entry)
  return { files: [...seen], bare: [...bare] }
}

describe("BrowserTokenStore outside a browser", () => {
  it("reaches no Node-only module", () => {
    const { bare, files } = importGraph(Path.resolve(import.meta.dirname, "../../src/BrowserTokenStore.ts"))
    expect(files.length).toBeGreaterThan(5)
    expect(bare.length).toBeGreaterThan(0)
    for (const specifier of bare) expect(specifier).toMatch(/^effect\//)
  })

  it.effect("imports where there is no window, and fails typed when built without storage", () =>
    Effect.gen(function*() {
      expect(typeof (globalThis as { window?: unknown }).window).toBe("undefined")
      const error = yield* Effect.flip(Effect.scoped(Layer.build(BrowserTokenStore.layer())))
      expect(error).toBeInstanceOf(TokenStore.TokenStoreError)
      expect(error.operation).toBe("open")
      expect(error.message).toMatch(/IndexedDB is unavailable, and localStorage is unavailable too/)
    }))
})
