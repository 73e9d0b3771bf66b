/**
 * Browser bundle size: the minimal client (connect over Streamable HTTP with
 * the browser's fetch, list tools, call one) bundled with esbuild (minified,
 * ESM, browser platform) and gzipped, ours vs the official SDK v1 client.
 *
 * Ours is `examples/installed-browser.ts`, measured by `browser/bundle.ts`
 * (the same measurement the size-budget test uses). "Own code" leaves
 * `effect` and `@effect/*` out; for the SDK it leaves out every dependency
 * that is not the SDK itself (zod, ajv, ...), so both lines compare the
 * library's own code.
 *
 * Ours is built with code splitting: the sizes are what the page loads up front. The JSON Schema
 * validator is a chunk loaded on demand (on the first `outputSchema` or elicitation-form check);
 * its size is reported beside them (`onDemandGzipKb`). The SDK's client has no such chunk (it
 * bundles its validator up front), so its `onDemandGzipKb` is 0.
 */
import * as esbuild from "esbuild"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { measureEntry, measureMinimalClient, measurePinned } from "../browser/bundle.js"

export interface BundleSize {
  readonly totalGzipKb: number
  readonly ownGzipKb: number
  readonly onDemandGzipKb: number
}

const sdkEntry = fileURLToPath(new URL("./entries/browser-sdk.ts", import.meta.url))

/** Marks every bare import but the SDK's own as external. */
const dependenciesExternal: esbuild.Plugin = {
  name: "dependencies-external",
  setup(build) {
    build.onResolve(
      { filter: /^[^./]/ },
      (args) => args.path.startsWith("@modelcontextprotocol/sdk") ? undefined : { path: args.path, external: true }
    )
  }
}

const gzipKb = async (plugins: Array<esbuild.Plugin>): Promise<number> => {
  const result = await esbuild.build({
    entryPoints: [sdkEntry],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    plugins,
    logLevel: "silent"
  })
  return gzipSync(result.outputFiles[0]!.text, { level: 9 }).length / 1024
}

const measureSdk = async (): Promise<BundleSize> => {
  const [totalGzipKb, ownGzipKb] = await Promise.all([gzipKb([]), gzipKb([dependenciesExternal])])
  return { totalGzipKb, ownGzipKb, onDemandGzipKb: 0 }
}

export const bundleSizes = async (): Promise<{ readonly ours: BundleSize; readonly sdk: BundleSize }> => {
  const [ours, sdk] = await Promise.all([measureMinimalClient(), measureSdk()])
  return { ours: { ...ours, onDemandGzipKb: ours.onDemand.totalGzipKb }, sdk }
}

/**
 * Ours pinned to one protocol era at bundle time (`examples/installed-browser-legacy.ts` /
 * `-modern.ts`), by era name as the bench prints it.
 */
export const pinnedBundleSizes = async (): Promise<Record<"2025-11-25" | "2026-07-28", BundleSize>> => {
  const [legacy, modern] = await Promise.all([measurePinned("legacy"), measurePinned("modern")])
  const size = (s: typeof legacy): BundleSize => ({ ...s, onDemandGzipKb: s.onDemand.totalGzipKb })
  return { "2025-11-25": size(legacy), "2026-07-28": size(modern) }
}

/**
 * The floor no minimal Effect 3 client goes below (`entries/browser-floor.ts`: the Effect runtime,
 * `FetchHttpClient` and `Schema`, no MCP code), measured as ours is: what the page loads up front.
 */
export const floorBundleSize = async (): Promise<number> =>
  (await measureEntry("../bench/entries/browser-floor.ts")).totalGzipKb
