import { describe, expect, it } from "@effect/vitest"
import * as esbuild from "esbuild"
import { fileURLToPath } from "node:url"
import { browserBuild } from "../browser/bundle.js"

// Optional features are carried by their Layers: the minimal browser client
// (`examples/installed-browser.ts`, no feature Layer) bundles their tags' keys and none of their code.
const minimalClientModules = async (): Promise<ReadonlyArray<string>> => {
  const result = await esbuild.build({
    ...browserBuild,
    absWorkingDir: fileURLToPath(new URL("..", import.meta.url)),
    entryPoints: [fileURLToPath(new URL("../examples/installed-browser.ts", import.meta.url))],
    metafile: true,
    minify: true,
    external: ["effect", "effect/*", "@effect/*"]
  })
  return Object.values(result.metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs).flatMap(([path, input]) => input.bytesInOutput > 0 ? [path] : [])
  )
}

describe("optional features in the minimal browser client", () => {
  it(
    "bundles no code of the response cache, durable tasks, continuations or approval requests",
    { timeout: 60_000 },
    async () => {
      const modules = await minimalClientModules()
      const core = "packages/core/src/"
      for (
        const feature of [
          "internal/client/responseCache.ts",
          "internal/client/taskRecord.ts",
          "ResponseCache.ts",
          "internal/client/durableTasks.ts",
          "internal/policy/continuations.ts",
          "DurableTasks.ts",
          "Continuations.ts",
          "ApprovalRequest.ts"
        ]
      ) {
        expect(modules, `${feature} is in the minimal client`).not.toContain(core + feature)
      }
    }
  )
})
