/**
 * mcp-effect under the official MCP conformance runner
 * (`@modelcontextprotocol/conformance client --command "<this>"`).
 *
 *   MCP_CONFORMANCE_SCENARIO=<name> [MCP_CONFORMANCE_CONTEXT=<json>] \
 *     tsx --conditions=@mcp-effect/source conformance/client.ts <server url>
 *
 * The server URL is the last argument. Exits 0 when the scenario's program
 * succeeds, non-zero with a message on stderr otherwise. The entry is looked
 * up as `<name>@<protocol version>` first (the alpha runner sets
 * `MCP_CONFORMANCE_PROTOCOL_VERSION`; 2025-11-25 when unset), then `<name>`.
 *
 *   tsx --conditions=@mcp-effect/source conformance/client.ts --list
 *
 * prints the table's keys, one a line (`run.mjs` checks the runner's
 * scenario names against them).
 */
import { NodeHttpClient } from "@effect/platform-node"
import { McpClient } from "@mcp-effect/core"
import { HttpTransport } from "@mcp-effect/transport-http"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { ConformanceContext, Scenario } from "./scenarios.js"
import { ScenarioFailed, scenarios } from "./scenarios.js"

/** Below the runner's own 30 s limit, so a hang is reported by us with a reason. */
const scenarioTimeout = "25 seconds"

const fail = (message: string): never => {
  process.stderr.write(`conformance client: ${message}\n`)
  process.exit(1)
}

const parseUrl = (arg: string | undefined): string => {
  if (arg === undefined) return fail("usage: client.ts <server url> (with MCP_CONFORMANCE_SCENARIO set)")
  try {
    return new URL(arg).href
  } catch {
    return fail(`the last argument is not a URL: ${arg}`)
  }
}

const parseContext = (json: string | undefined): ConformanceContext => {
  if (json === undefined || json === "") return {}
  try {
    const parsed: unknown = JSON.parse(json)
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as ConformanceContext
  } catch {
    // reported below
  }
  return fail("MCP_CONFORMANCE_CONTEXT is not a JSON object")
}

const scenarioNamed = (name: string | undefined, protocolVersion: string): Scenario => {
  if (name === undefined || name === "") return fail("MCP_CONFORMANCE_SCENARIO is not set")
  const key = [`${name}@${protocolVersion}`, name].find((k) => Object.hasOwn(scenarios, k))
  return key !== undefined ?
    scenarios[key] :
    fail(`unknown scenario "${name}" at ${protocolVersion} (known: ${Object.keys(scenarios).join(", ")})`)
}

if (process.argv.includes("--list")) {
  process.stdout.write(Object.keys(scenarios).map((key) => `${key}\n`).join(""))
  process.exit(0)
}

const name = process.env.MCP_CONFORMANCE_SCENARIO
const protocolVersion = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION || "2025-11-25"
const scenario = scenarioNamed(name, protocolVersion)
const url = parseUrl(process.argv.at(-1))
const context = parseContext(process.env.MCP_CONFORMANCE_CONTEXT)

// the app's services (handlers, the OAuth hook) share the app's HTTP client with the transport
const services = Layer.provideMerge(scenario.services?.(context) ?? Layer.empty, NodeHttpClient.layerUndici)
const client = McpClient.layer({
  ...scenario.client,
  clientInfo: { name: "mcp-effect-conformance", version: "0.1.0" }
}).pipe(
  Layer.provide(HttpTransport.layer({ url })),
  Layer.provideMerge(services)
)

const exit = await Effect.runPromiseExit(
  scenario.program.pipe(
    Effect.provide(client),
    Effect.timeoutFail({
      duration: scenarioTimeout,
      onTimeout: () => new ScenarioFailed({ message: `timed out after ${scenarioTimeout}` })
    })
  )
)
if (Exit.isSuccess(exit)) {
  process.stdout.write(`conformance client: ${name}: ${exit.value}\n`)
  process.exit(0)
}
const failure = Cause.failureOption(exit.cause)
fail(
  `scenario ${name} failed: ${
    Option.isSome(failure) ? `${failure.value._tag}: ${failure.value.message}` : Cause.pretty(exit.cause)
  }`
)
