import { describe, expect, it } from "@effect/vitest"
import * as esbuild from "esbuild"
import { fileURLToPath } from "node:url"

/**
 * The `@effect/platform` modules a program's bundle imports. What Node loads is what the bundle
 * imports: our packages are bundled from their sources, `effect` and `@effect/*` stay imports, as
 * they are in an app's `node_modules`. An import the bundler keeps is loaded even when none of its
 * values is used.
 */
const platformImports = async (program: string): Promise<ReadonlyArray<string>> => {
  const result = await esbuild.build({
    stdin: { contents: program, resolveDir: fileURLToPath(new URL(".", import.meta.url)) },
    bundle: true,
    format: "esm",
    platform: "node",
    conditions: ["@mcp-effect/source"],
    external: ["effect", "effect/*", "@effect/*"],
    // as an app's bundler does: what the packages load with `import()` is a chunk of its own
    splitting: true,
    outdir: "out",
    metafile: true,
    write: false,
    logLevel: "silent"
  })
  const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((i) => i.path))
  return [...new Set(imports.filter((path) => path.startsWith("@effect/platform")))].sort()
}

/** A client calling one tool, its transport and other Layers given as the expression `layers`. */
const client = (layers: string) => `
import { McpClient, SessionStore } from "@mcp-effect/core"
import { NodeStdioTransport, StdioTransport } from "@mcp-effect/transport-stdio"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  console.log(yield* client.callTool({ name: "echo", arguments: { text: "hello" } }))
}).pipe(
  Effect.provide(McpClient.layer({ clientInfo: { name: "app", version: "1.0.0" } }).pipe(Layer.provide(${layers}))),
  Effect.runFork
)
`

describe("what a stdio client loads of @effect/platform", () => {
  it("a client on NodeStdioTransport imports none of it (no KeyValueStore, CommandExecutor, Command)", {
    timeout: 30_000
  }, async () => {
    expect(await platformImports(client("NodeStdioTransport.layer({ command: \"server\" })"))).toEqual([])
  })

  it("a client whose Layers need a store and an executor imports the platform's KeyValueStore and Command", {
    timeout: 30_000
  }, async () => {
    const imports = await platformImports(
      client("Layer.merge(StdioTransport.layer({ command: \"server\" }), SessionStore.layerMemory)")
    )
    expect(imports).toContain("@effect/platform/KeyValueStore")
    expect(imports).toContain("@effect/platform/CommandExecutor")
    expect(imports).toContain("@effect/platform/Command")
  })
})
