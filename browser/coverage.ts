/**
 * Which of the minimal browser client's code the measured flow runs: bundles
 * `examples/installed-browser.ts` with minified syntax and identifiers but
 * whitespace kept (so esbuild marks where each source file starts), runs it
 * in Chromium against the browser suite's MCP server (official SDK over
 * Streamable HTTP, 127.0.0.1) with V8 block coverage on, and prints per
 * source file the bytes that ran and the bytes that never did, largest
 * first, with the biggest functions that never ran. Bytes are counted
 * without whitespace and comments: close to what the file weighs in the
 * minified bundle. "gzip saved" is what the gzipped whole loses when that
 * file's never-run code is left out: the most an on-demand split of it could
 * save up front. The last line estimates the gzipped size of the whole and of
 * what ran (the floor for code loaded up front, whatever is split out).
 * Own code only by default; `--all` adds `effect` and the other packages;
 * `--names` keeps identifiers (readable function names, larger byte counts);
 * `--sdk` measures the official SDK's equivalent (`bench/entries/browser-sdk.ts`,
 * its own code being `@modelcontextprotocol/sdk`) the same way.
 *
 *   npx tsx --conditions=@mcp-effect/source browser/coverage.ts [--sdk] [--all] [--names] [--functions N]
 *
 * Code the flow never runs, in bulk, is what an on-demand chunk could hold
 * (bench/README.md, "Size budget test").
 */
import * as esbuild from "esbuild"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { chromium } from "playwright-core"
import { browserBuild } from "./bundle.js"
import { startMcpFixture } from "./servers/mcpServer.js"
import { startPageServer } from "./servers/pageServer.js"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const args = process.argv.slice(2)
const all = args.includes("--all")
const sdk = args.includes("--sdk")
const names = args.includes("--names")
const functionsIndex = args.indexOf("--functions")
const functionsShown = functionsIndex >= 0 ? Number(args[functionsIndex + 1]) : 5

/** The page script: the client's `run(url)`, exposed for `page.evaluate`. */
const client = sdk ? "../bench/entries/browser-sdk.ts" : "../examples/installed-browser.ts"
const pageEntry = `import { run } from ${JSON.stringify(here(client))}
globalThis.runMinimalClient = run`

/** Whether a bundled file is the client's own code. */
const isOwn = (file: string) =>
  sdk ? file.startsWith("node_modules/@modelcontextprotocol/sdk/") : !file.startsWith("node_modules/")

interface FileRange {
  readonly file: string
  readonly start: number
  readonly end: number
}

/** esbuild's output, whitespace kept, starts each module's code with a `// path` comment line. */
const fileRanges = (text: string): Array<FileRange> => {
  const starts: Array<{ file: string; start: number }> = []
  const marker = /^\/\/ ((?:packages|node_modules|examples|browser)\/\S+)$/gm
  for (const match of text.matchAll(marker)) starts.push({ file: match[1]!, start: match.index! })
  return starts.map((s, i) => ({ file: s.file, start: s.start, end: starts[i + 1]?.start ?? text.length }))
}

interface CoverageRange {
  readonly startOffset: number
  readonly endOffset: number
  readonly count: number
}
interface FunctionCoverage {
  readonly functionName: string
  readonly ranges: ReadonlyArray<CoverageRange>
}

const isWhitespace = (c: number) => c === 32 || c === 10 || c === 9

/** Counts the bytes of `text` in `[start, end)` that are not whitespace and, given `ran`, those that ran. */
const countBytes = (text: string, ran: Uint8Array, start: number, end: number) => {
  let bytes = 0
  let executed = 0
  for (let i = start; i < end; i++) {
    if (isWhitespace(text.charCodeAt(i))) continue
    bytes++
    executed += ran[i]!
  }
  return { bytes, executed }
}

/** The text of `[start, end)` that ran, whitespace collapsed to one space (close to its minified form). */
const ranText = (text: string, ran: Uint8Array, start: number, end: number) => {
  let out = ""
  let space = false
  for (let i = start; i < end; i++) {
    if (ran[i] === 0) continue
    if (isWhitespace(text.charCodeAt(i))) space = true
    else {
      if (space) out += " "
      space = false
      out += text[i]
    }
  }
  return out
}

/** Per byte, whether it ran: V8 lists each function's ranges outer first, inner ranges override. */
const executedBytes = (length: number, functions: ReadonlyArray<FunctionCoverage>): Uint8Array => {
  const ran = new Uint8Array(length).fill(1)
  const ranges = functions.flatMap((f) => f.ranges).sort((a, b) =>
    a.startOffset - b.startOffset || b.endOffset - a.endOffset
  )
  for (const range of ranges) ran.fill(range.count > 0 ? 1 : 0, range.startOffset, range.endOffset)
  return ran
}

const main = async () => {
  const built = await esbuild.build({
    ...browserBuild,
    stdin: { contents: pageEntry, resolveDir: here("."), loader: "ts" },
    minifySyntax: true,
    minifyIdentifiers: !names
  })
  const bundle = built.outputFiles[0]!.text
  const pages = await startPageServer(bundle)
  const mcp = await startMcpFixture({
    pageOrigin: pages.origin,
    issuer: () => "http://127.0.0.1:9",
    introspection: { clientId: "unused", clientSecret: "unused" }
  })
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
  })
  try {
    const page = await browser.newPage()
    await page.coverage.startJSCoverage({ resetOnNavigation: false })
    await page.goto(pages.origin)
    const result = await page.evaluate(
      (url) => (globalThis as any).runMinimalClient(url).then((r: unknown) => JSON.stringify(r)),
      `${mcp.origin}/mcp`
    )
    console.log(`flow result: ${result.slice(0, 120)}`)
    const entries = await page.coverage.stopJSCoverage()
    const script = entries.find((e) => e.url.endsWith("/bundle.js"))
    if (script === undefined) throw new Error("no coverage for /bundle.js")
    const ran = executedBytes(bundle.length, script.functions)
    // counted as whitespace: annotations, comments on lines of their own and the file markers,
    // which minified output leaves out
    const counted = bundle.replace(
      /\/\* @__\w+__ \*\/|^[ \t]*\/\*[\s\S]*?\*\/|^[ \t]*\/\/.*$/gm,
      (comment) => comment.replace(/[^\n]/g, " ")
    )
    const everything = new Uint8Array(bundle.length).fill(1)
    const inOrder = fileRanges(bundle).filter((r) => all || isOwn(r.file)).map((r) => {
      const { bytes, executed } = countBytes(counted, ran, r.start, r.end)
      const unused = script.functions
        .filter((f) =>
          f.ranges[0]!.count === 0 && f.ranges[0]!.startOffset >= r.start && f.ranges[0]!.endOffset <= r.end
        )
        .map((f) => ({
          name: f.functionName || "(anonymous)",
          bytes: countBytes(counted, ran, f.ranges[0]!.startOffset, f.ranges[0]!.endOffset).bytes
        }))
        .sort((a, b) => b.bytes - a.bytes)
      const whole = ranText(counted, everything, r.start, r.end)
      return { ...r, executed, never: bytes - executed, unused, whole, ran: ranText(counted, ran, r.start, r.end) }
    })
    const gzip = (text: string) => gzipSync(text, { level: 9 }).length
    const wholeGzip = gzip(inOrder.map((row) => row.whole).join(""))
    const ranGzip = gzip(inOrder.map((row) => row.ran).join(""))
    const kb = (bytes: number) => (bytes / 1024).toFixed(1)
    // what the gzipped whole loses when one file's never-run code is left out (the most a split of it saves)
    const saved = (file: FileRange) =>
      wholeGzip - gzip(inOrder.map((row) => row === file ? row.ran : row.whole).join(""))
    let never = 0
    let executed = 0
    console.log("  never     ran  gzip saved  file  [largest functions that never ran]")
    for (const row of [...inOrder].sort((a, b) => b.never - a.never)) {
      never += row.never
      executed += row.executed
      const top = row.unused.slice(0, functionsShown).map((f) => `${f.name} ${f.bytes}`).join(", ")
      console.log(
        `${String(row.never).padStart(7)} ${String(row.executed).padStart(7)} ${
          String(saved(row)).padStart(11)
        }  ${row.file}` +
          (top ? `  [${top}]` : "")
      )
    }
    console.log(`${never} bytes never ran, ${executed} ran (minified, ${all ? "all code" : "own code"})`)
    // estimates (the text left is no longer a program): the floor an on-demand split could reach
    console.log(`gzip -9: ${kb(wholeGzip)} KB whole, ${kb(ranGzip)} KB of what ran (whitespace collapsed to one space)`)
  } finally {
    await browser.close()
    await mcp.close()
    await pages.close()
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
