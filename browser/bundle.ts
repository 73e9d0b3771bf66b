/**
 * Bundles for the browser with esbuild, from the packages' TypeScript
 * sources (the `@mcp-effect/source` export condition).
 */
import * as esbuild from "esbuild"
import { relative } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/** What every browser build here shares: one ESM bundle in memory, from the packages' sources. */
export const browserBuild = {
  bundle: true,
  write: false,
  format: "esm",
  platform: "browser",
  target: "es2022",
  conditions: ["@mcp-effect/source"],
  logLevel: "silent"
} satisfies esbuild.BuildOptions

const build = async (entry: string, options: { readonly minify: boolean; readonly external?: Array<string> }) => {
  const result = await esbuild.build({
    ...browserBuild,
    entryPoints: [here(entry)],
    minify: options.minify,
    external: options.external ?? []
  })
  return result.outputFiles[0]!.text
}

/** The app the suite drives. */
export const bundlePage = (): Promise<string> => build("./page/entry.ts", { minify: false })

/** The WebSocket scenario's part of the page (added to the page by `websocket.ts`). */
export const bundleWebSocketPage = (): Promise<string> => build("./page/websocket.ts", { minify: false })

const gzipKb = (text: string) => gzipSync(text, { level: 9 }).length / 1024

/** The gzipped sizes of one split build: what a page loads up front, and the chunks it loads on demand. */
interface SplitSize {
  /** The entry chunk and every chunk it imports statically: what the page loads before it runs. */
  readonly initialGzipKb: number
  /** Chunks reached only through a dynamic `import()` (the JSON Schema validator): loaded when first used. */
  readonly onDemandGzipKb: number
}

/**
 * Bundles an entry with code splitting (each chunk minified, gzipped on its own, as a server sends
 * it) and sums the chunks the page loads up front apart from those it loads on demand.
 */
const measureSplit = async (entry: string, external: Array<string>): Promise<SplitSize> => {
  const root = here("..")
  const result = await esbuild.build({
    ...browserBuild,
    absWorkingDir: root,
    entryPoints: [here(entry)],
    splitting: true,
    outdir: here("../.cache/bundle-size"),
    metafile: true,
    minify: true,
    external
  })
  const outputs = result.metafile.outputs
  const initial = new Set<string>()
  const visit = (path: string) => {
    if (initial.has(path)) return
    initial.add(path)
    for (const imported of outputs[path]!.imports) {
      if (imported.kind === "import-statement" && !imported.external) visit(imported.path)
    }
  }
  // a chunk reached by a dynamic import is an entry point in the metafile too: start from ours only
  const ours = relative(root, here(entry))
  for (const [path, output] of Object.entries(outputs)) if (output.entryPoint === ours) visit(path)
  if (initial.size === 0) throw new Error(`no output chunk for ${ours}`)
  let initialGzipKb = 0
  let onDemandGzipKb = 0
  for (const file of result.outputFiles) {
    const size = gzipKb(file.text)
    if (initial.has(relative(root, file.path))) initialGzipKb += size
    else onDemandGzipKb += size
  }
  return { initialGzipKb, onDemandGzipKb }
}

/** The gzipped sizes of one entry: up front (whole, and without effect / @effect/*) and on demand. */
export interface EntrySize {
  readonly totalGzipKb: number
  readonly ownGzipKb: number
  readonly onDemand: { readonly totalGzipKb: number; readonly ownGzipKb: number }
}

/**
 * Measures one entry (a path from this folder) as `measureMinimalClient` measures the client.
 */
export const measureEntry = async (entry: string): Promise<EntrySize> => {
  const [total, own] = await Promise.all([
    measureSplit(entry, []),
    measureSplit(entry, ["effect", "effect/*", "@effect/*"])
  ])
  return {
    totalGzipKb: total.initialGzipKb,
    ownGzipKb: own.initialGzipKb,
    onDemand: { totalGzipKb: total.onDemandGzipKb, ownGzipKb: own.onDemandGzipKb }
  }
}

/**
 * Gzipped size of the minimal client (`examples/installed-browser.ts`: connect over Streamable
 * HTTP with `FetchHttpClient`, list tools, call one), whole and without effect / @effect/*.
 * `totalGzipKb` / `ownGzipKb` are what the page loads up front; `onDemand` is what it loads
 * later, only if it checks a JSON Schema (a tool with an `outputSchema`, an elicitation form).
 */
export const measureMinimalClient = (): Promise<EntrySize> => measureEntry("../examples/installed-browser.ts")

/**
 * The same client pinned to one protocol era at bundle time (`examples/installed-browser-legacy.ts`:
 * `ProtocolEra2025.era` + `HttpEra2025.era`; `-modern.ts`: `ProtocolEra2026.era` +
 * `HttpEra2026.era`), measured as `measureMinimalClient` measures the default one.
 */
export const measurePinned = (era: "legacy" | "modern"): Promise<EntrySize> =>
  measureEntry(`../examples/installed-browser-${era}.ts`)

/**
 * The source files (paths from the repository root) that put code into the bundle of the client
 * pinned to `era`: what the test that the other era's modules stay out reads.
 */
export const pinnedModules = async (era: "legacy" | "modern"): Promise<ReadonlyArray<string>> => {
  const result = await esbuild.build({
    ...browserBuild,
    absWorkingDir: here(".."),
    entryPoints: [here(`../examples/installed-browser-${era}.ts`)],
    metafile: true,
    minify: true
  })
  return Object.values(result.metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs).flatMap(([path, input]) => input.bytesInOutput > 0 ? [path] : [])
  )
}
