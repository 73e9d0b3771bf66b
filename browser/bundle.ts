/**
 * Bundles for the browser with esbuild, from the packages' TypeScript
 * sources (the `@mcp-effect/source` export condition).
 */
import * as esbuild from "esbuild"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

const build = async (entry: string, options: { readonly minify: boolean; readonly external?: Array<string> }) => {
  const result = await esbuild.build({
    entryPoints: [here(entry)],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["@mcp-effect/source"],
    minify: options.minify,
    external: options.external ?? [],
    logLevel: "silent"
  })
  return result.outputFiles[0]!.text
}

/** The app the suite drives. */
export const bundlePage = (): Promise<string> => build("./page/entry.ts", { minify: false })

/** The WebSocket scenario's part of the page (added to the page by `websocket.ts`). */
export const bundleWebSocketPage = (): Promise<string> => build("./page/websocket.ts", { minify: false })

const gzipKb = (text: string) => gzipSync(text, { level: 9 }).length / 1024

/**
 * Gzipped size of the minimal client (`examples/installed-browser.ts`: connect over Streamable
 * HTTP with `FetchHttpClient`, list tools, call one), whole and without effect / @effect/*.
 */
export const measureMinimalClient = async (): Promise<{ readonly totalGzipKb: number; readonly ownGzipKb: number }> => {
  const entry = "../examples/installed-browser.ts"
  const [total, own] = await Promise.all([
    build(entry, { minify: true }),
    build(entry, { minify: true, external: ["effect", "effect/*", "@effect/*"] })
  ])
  return { totalGzipKb: gzipKb(total), ownGzipKb: gzipKb(own) }
}
