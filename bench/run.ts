/**
 * `npm run bench`: our client vs the official SDK client (and, as the floor,
 * a raw NDJSON loop over stdio and a raw POST loop over HTTP) on the same
 * fixture servers, in one run.
 *
 * Metric lines go to stdout, one per metric; progress and per-round samples
 * go to stderr. See bench/README.md.
 */
import { parseArgs } from "node:util"
import { bundleSizes, floorBundleSize, pinnedBundleSizes } from "./bundle.js"
import * as Ours from "./clients/ours.js"
import * as Raw from "./clients/raw.js"
import * as RawHttp from "./clients/rawHttp.js"
import * as Sdk from "./clients/sdk.js"
import { coldStart } from "./cold.js"
import { type Contender, idleHeap, inFlightHeap, latency, type Scores, throughput } from "./measure.js"
import { startHttpServer, stdioServer } from "./servers.js"
import { toolSearch } from "./toolSearch/run.js"

const { values: flags } = parseArgs({
  options: {
    calls: { type: "string", default: "2000" },
    "http-calls": { type: "string", default: "500" },
    warmup: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "1000" },
    repeats: { type: "string", default: "5" },
    sessions: { type: "string", default: "100" },
    "stdio-sessions": { type: "string", default: "20" },
    "in-flight": { type: "string", default: "1000" },
    "cold-runs": { type: "string", default: "5" },
    only: { type: "string" },
    "http-response": { type: "string", default: "sse" },
    "http-client": { type: "string", default: "undici" }
  }
})

const count = (name: string, value: string | undefined): number => {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${value}`)
  return n
}
const oneOf = <A extends string>(name: string, value: string | undefined, allowed: ReadonlyArray<A>): A => {
  if (!allowed.includes(value as A)) throw new Error(`--${name} must be one of ${allowed.join(", ")}, got ${value}`)
  return value as A
}

/** The groups of metrics `--only` can pick. */
const metrics = ["bundle", "cold", "stdio", "heap", "http", "tools"] as const

const options = {
  calls: count("calls", flags.calls),
  httpCalls: count("http-calls", flags["http-calls"]),
  warmup: count("warmup", flags.warmup),
  concurrency: count("concurrency", flags.concurrency),
  repeats: count("repeats", flags.repeats),
  sessions: count("sessions", flags.sessions),
  stdioSessions: count("stdio-sessions", flags["stdio-sessions"]),
  inFlight: count("in-flight", flags["in-flight"]),
  coldRuns: count("cold-runs", flags["cold-runs"]),
  only: flags.only === undefined ? undefined : oneOf("only", flags.only, metrics),
  httpResponse: oneOf("http-response", flags["http-response"], ["sse", "json"] as const),
  httpClient: oneOf("http-client", flags["http-client"], ["fetch", "undici"] as const)
}

const log = (line: string) => process.stderr.write(line + "\n")

// Under 1000 concurrent calls the SDK client adds a listener per pending write
// (stdin "drain") or request (one shared AbortSignal) and Node warns each time:
// count those warnings instead of printing them.
let listenerWarnings = 0
process.removeAllListeners("warning")
process.on("warning", (warning) => {
  if (warning.name === "MaxListenersExceededWarning") listenerWarnings++
  else log(String(warning))
})
const print = (line: string) => process.stdout.write(line + "\n")

const fmt = (value: number | undefined, digits: number) => value === undefined ? "n/a" : value.toFixed(digits)
const ratio = (scores: Scores, of: "ours" | "raw" = "ours") => {
  const value = scores[of]
  return value === undefined || scores.sdk === undefined ? "n/a" : (value / scores.sdk).toFixed(2)
}

/** With a raw loop, `raw-ratio` (raw / sdk) is the best ratio any client could reach in the same run. */
const line = (metric: string, scores: Scores, digits: number, better: "lower" | "higher") => {
  const parts = (["ours", "sdk", "raw"] as const)
    .filter((name) => name in scores)
    .map((name) => `${name}=${fmt(scores[name], digits)}`)
  const floor = "raw" in scores ? ` raw-ratio=${ratio(scores, "raw")}` : ""
  return `${metric}: ${parts.join(" ")} ratio=${ratio(scores)}${floor} (${better} is better)`
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0]

const closeAll = async (contenders: ReadonlyArray<Contender>) => {
  for (const { subject } of contenders) await subject.close()
}

/** Prints the latency line (and the throughput line) of `contenders`, then closes them. */
const compare = async (
  transport: "stdio" | "http",
  contenders: ReadonlyArray<Contender>,
  how: { readonly calls: number; readonly throughput: boolean; readonly note?: string }
) => {
  try {
    const note = how.note ?? ""
    print(
      line(`${transport} latency${note}`, await latency(contenders, { ...options, calls: how.calls }, log), 1, "lower")
    )
    if (how.throughput) {
      const rounds = { concurrency: options.concurrency, rounds: options.repeats }
      print(line(`${transport} throughput${note}`, await throughput(contenders, rounds, log), 0, "higher"))
    }
  } finally {
    await closeAll(contenders)
  }
}

const stdio = async (ours: Ours.Ours) => {
  log(
    `stdio: ${options.calls} sequential calls x${options.repeats} (median), ` +
      `${options.concurrency} concurrent x${options.repeats} (best), one server process per client`
  )
  const contenders: Array<Contender> = [
    { name: "ours", subject: await ours.startStdio(stdioServer) },
    { name: "sdk", subject: await Sdk.startStdio(stdioServer) },
    { name: "raw", subject: await Raw.start(stdioServer) }
  ]
  await compare("stdio", contenders, { calls: options.calls, throughput: true })
  // the portable backend (any runtime with a CommandExecutor), against the SDK again
  const portable: Array<Contender> = [
    { name: "ours", subject: await ours.startStdio(stdioServer, "command") },
    { name: "sdk", subject: await Sdk.startStdio(stdioServer) }
  ]
  await compare("stdio", portable, { calls: options.calls, throughput: false, note: " (platform Command backend)" })
}

const http = async (ours: Ours.Ours) => {
  const server = await startHttpServer(options.httpResponse === "json")
  log(
    `http: ${server.url}, stateful, ${options.httpResponse.toUpperCase()} responses, ` +
      `our HttpClient: ${options.httpClient}; ${options.httpCalls} sequential calls x${options.repeats} (median), ` +
      `${options.concurrency} concurrent x${options.repeats} (best)`
  )
  try {
    // first, before the latency and throughput rounds: after 1000 concurrent calls each client's heap is still
    // releasing what they left (closing the sessions then frees more than they added), by amounts that differ
    // per client and per run, which the growth per session would count against the session
    log(
      `http: ${options.sessions} + ${options.sessions} idle sessions per client (the second ${options.sessions} measured)`
    )
    let ourHeap: Awaited<ReturnType<typeof idleHeap>>
    try {
      ourHeap = await idleHeap(options.sessions, () => ours.openHttp(server.url))
    } catch (error) {
      for (const metric of ["http latency", "http throughput", "http idle heap per session"]) {
        print(`${metric}: skipped (our client could not connect: ${reason(error)})`)
      }
      return
    }
    const sdkHeap = await idleHeap(options.sessions, async () => {
      const client = await Sdk.openHttp(server.url)
      return () => client.close()
    })
    log(
      `  per session of the first ${options.sessions}: ours=${fmt(ourHeap.firstOpen, 1)} sdk=${
        fmt(sdkHeap.firstOpen, 1)
      } KiB; ` +
        `still held per session after closing them all: ours=${fmt(ourHeap.afterClose, 1)} sdk=${
          fmt(sdkHeap.afterClose, 1)
        } KiB`
    )
    const heap: Scores = { ours: ourHeap.open, sdk: sdkHeap.open }
    const sdk: Contender = { name: "sdk", subject: await Sdk.startHttp(server.url) }
    let mine: Contender | undefined
    try {
      mine = { name: "ours", subject: await ours.startHttp(server.url) }
    } catch (error) {
      await sdk.subject.close()
      for (const metric of ["http latency", "http throughput", "http idle heap per session"]) {
        print(`${metric}: skipped (our client could not connect: ${reason(error)})`)
      }
      return
    }
    const raw: Contender = { name: "raw", subject: await RawHttp.startHttp(server.url) }
    await compare("http", [mine, sdk, raw], { calls: options.httpCalls, throughput: true })
    print(
      `http idle heap per session: ours=${fmt(heap.ours, 1)} sdk=${fmt(heap.sdk, 1)} ratio=${ratio(heap)} ` +
        `(KiB, lower is better)`
    )
  } finally {
    await server.close()
  }
}

const kib = (scores: Scores, digits: number) =>
  `ours=${fmt(scores.ours, digits)} sdk=${fmt(scores.sdk, digits)} ratio=${ratio(scores)} (KiB, lower is better)`

const bundle = async () => {
  log("bundle: the minimal browser client (Streamable HTTP, fetch, list tools, call one), esbuild --minify, gzip -9")
  const { ours, sdk } = await bundleSizes()
  const total: Scores = { ours: ours.totalGzipKb, sdk: sdk.totalGzipKb }
  const own: Scores = { ours: ours.ownGzipKb, sdk: sdk.ownGzipKb }
  print(`browser bundle total gzip: ${kib(total, 1)}`)
  print(`browser bundle own code gzip: ${kib(own, 1)}`)
  print(
    `browser bundle on-demand chunks gzip: ours=${fmt(ours.onDemandGzipKb, 1)} sdk=${fmt(sdk.onDemandGzipKb, 1)} ` +
      `(KiB: the JSON Schema validator, loaded at the first outputSchema check; not in the lines above)`
  )
  for (const [era, pinned] of Object.entries(await pinnedBundleSizes())) {
    print(
      `browser bundle total gzip, pinned to ${era}: ours=${fmt(pinned.totalGzipKb, 1)} ` +
        `(KiB, own code ${fmt(pinned.ownGzipKb, 1)}; lower is better)`
    )
  }
  print(
    `browser bundle total gzip, Effect + FetchHttpClient + Schema alone: effect=${fmt(await floorBundleSize(), 1)} ` +
      `(KiB: no MCP code; no Effect client's total is below it)`
  )
}

const cold = async () => {
  log(
    `cold start: ${options.coldRuns} fresh Node processes per client (median), import + spawn + initialize + one call`
  )
  const { cpu, effectFloor, floor, wall } = await coldStart(options.coldRuns, log)
  print(line("stdio cold start", wall, 0, "lower").replace("(lower", "(ms, lower"))
  print(line("stdio cold start CPU", cpu, 0, "lower").replace("(lower", "(ms, lower"))
  const published = (scores: typeof wall): Scores => ({ ours: scores["ours-dist"], sdk: scores.sdk })
  print(line("stdio cold start, packages as published", published(wall), 0, "lower").replace("(lower", "(ms, lower"))
  print(line("stdio cold start CPU, packages as published", published(cpu), 0, "lower").replace("(lower", "(ms, lower"))
  const whole = (scores: typeof wall): Scores => ({ ours: scores["ours-whole"], sdk: scores["sdk-whole"] })
  print(line("stdio cold start, both bundled whole", whole(wall), 0, "lower").replace("(lower", "(ms, lower"))
  print(line("stdio cold start CPU, both bundled whole", whole(cpu), 0, "lower").replace("(lower", "(ms, lower"))
  print(line("stdio cold start import floor", floor.wall, 0, "lower").replace("(lower", "(ms, lower"))
  print(line("stdio cold start import floor CPU", floor.cpu, 0, "lower").replace("(lower", "(ms, lower"))
  // the floor of any client on Effect 3, against the SDK's whole cold start (import, spawn, initialize, call)
  print(
    `stdio cold start CPU, Effect + Schema import alone: effect=${fmt(effectFloor.cpu, 0)} sdk=${fmt(cpu.sdk, 0)} ` +
      `ratio=${
        ratio({ ours: effectFloor.cpu, sdk: cpu.sdk })
      } (ms, lower is better; no Effect client's ratio is below it)`
  )
}

const heap = async (ours: Ours.Ours) => {
  log(
    `heap: ${options.stdioSessions} + ${options.stdioSessions} idle stdio sessions per client (the second ${options.stdioSessions} measured)`
  )
  const ourIdle = await idleHeap(options.stdioSessions, () => ours.openStdio(stdioServer))
  const sdkIdle = await idleHeap(options.stdioSessions, async () => {
    const client = await Sdk.openStdio(stdioServer)
    return () => client.close()
  })
  log(
    `  per session of the first ${options.stdioSessions}: ours=${fmt(ourIdle.firstOpen, 1)} sdk=${
      fmt(sdkIdle.firstOpen, 1)
    } KiB; ` +
      `still held per session after closing them all: ours=${fmt(ourIdle.afterClose, 1)} sdk=${
        fmt(sdkIdle.afterClose, 1)
      } KiB`
  )
  print(`stdio idle heap per session: ${kib({ ours: ourIdle.open, sdk: sdkIdle.open }, 1)}`)

  log(`heap: ${options.inFlight} pending calls per client, x${options.repeats} (median)`)
  const scores: Scores = {}
  for (const [name, start] of [["ours", ours.startHolder], ["sdk", Sdk.startHolder]] as const) {
    const holder = await start(stdioServer)
    try {
      const { median, samples } = await inFlightHeap(holder, { requests: options.inFlight, rounds: options.repeats })
      log(`  ${name}: ${samples.map((v) => v.toFixed(2)).join(" ")} KiB/request`)
      scores[name] = median
    } finally {
      await holder.close()
    }
  }
  print(`stdio heap per in-flight request: ${kib(scores, 2)}`)
}

const main = async () => {
  const started = performance.now()
  log(`node ${process.version}`)
  const runs = (metric: (typeof metrics)[number]) => options.only === undefined || options.only === metric
  const ours = Ours.make(options.httpClient)
  try {
    if (runs("bundle")) await bundle()
    if (runs("cold")) await cold()
    if (runs("stdio")) await stdio(ours)
    if (runs("heap")) await heap(ours)
    if (runs("http")) await http(ours)
    if (runs("tools")) toolSearch(print, log)
  } finally {
    await ours.dispose()
  }
  if (listenerWarnings > 0) log(`(${listenerWarnings} MaxListenersExceededWarning from Node suppressed)`)
  log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

main().then(
  () => process.exit(0),
  (error) => {
    // a failed Effect prints every parallel failure: the first lines say enough
    console.error(String(error).split("\n").slice(0, 8).join("\n"))
    process.exit(1)
  }
)
