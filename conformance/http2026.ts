/**
 * The Streamable HTTP header scenarios of protocol 2026-07-28 (SEP-2243):
 * `Mcp-Method` / `Mcp-Name` on every request, `x-mcp-header` tool
 * parameters mirrored as `Mcp-Param-*`, and tools with invalid annotations
 * left out of the list. The headers themselves are the transport's work;
 * these programs only use the client the way an app does.
 */
import { McpClient } from "@mcp-effect/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { ConformanceContext } from "./auth.js"
import { ScenarioFailed } from "./errors.js"
import type { Scenario } from "./scenarios.js"

/** The calls `http-custom-headers` asks for, from its context. */
const ToolCalls = Schema.Struct({
  toolCalls: Schema.Array(Schema.Struct({
    name: Schema.String,
    arguments: Schema.Record({ key: Schema.String, value: Schema.Unknown })
  }))
})

class ScenarioContext extends Context.Tag("conformance/http2026/ScenarioContext")<
  ScenarioContext,
  ConformanceContext
>() {}

const withContext = (context: ConformanceContext) => Layer.succeed(ScenarioContext, context)

const calls = Effect.gen(function*() {
  const context = yield* Effect.serviceOption(ScenarioContext)
  return yield* Schema.decodeUnknown(ToolCalls)(Option.getOrElse(context, () => ({}))).pipe(
    Effect.mapError(() => new ScenarioFailed({ message: "MCP_CONFORMANCE_CONTEXT names no toolCalls" }))
  )
})

/** Fails on a tool result marked as an error. */
const call = (name: string, args: Record<string, unknown>) =>
  Effect.flatMap(McpClient.McpClient, (client) => client.callTool({ name, arguments: args })).pipe(
    Effect.filterOrFail(
      (result) => result.isError !== true,
      () => new ScenarioFailed({ message: `tool "${name}" returned an error` })
    )
  )

export const scenarios: Readonly<Record<string, Scenario>> = {
  // every kind of request that names something: each tool, resource and prompt the server lists
  "http-standard-headers": {
    program: Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const tools = yield* client.listTools
      for (const tool of tools) yield* call(tool.name, {})
      const resources = yield* client.listResources
      for (const resource of resources) yield* client.readResource(resource.uri)
      const prompts = yield* client.listPrompts
      for (const prompt of prompts) yield* client.getPrompt(prompt.name)
      return `called ${tools.length} tools, read ${resources.length} resources, got ${prompts.length} prompts`
    })
  },
  // the calls of the scenario's context, after listing the tools (whose schemas say which arguments are headers)
  "http-custom-headers": {
    services: withContext,
    program: Effect.gen(function*() {
      const { toolCalls } = yield* calls
      const client = yield* McpClient.McpClient
      yield* client.listTools
      for (const { arguments: args, name } of toolCalls) yield* call(name, args)
      return `called ${toolCalls.map((c) => c.name).join(", ")}`
    })
  },
  // only the valid tool may be listed; every listed tool is called, so a listed invalid one fails the scenario
  "http-invalid-tool-headers": {
    program: Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const tools = yield* client.listTools
      for (const tool of tools) yield* call(tool.name, { region: "us-west1" })
      const names = tools.map((tool) => tool.name)
      if (names.length !== 1 || names[0] !== "valid_tool") {
        return yield* new ScenarioFailed({ message: `expected only valid_tool to be listed, got ${names.join(", ")}` })
      }
      return "listed and called valid_tool only"
    })
  }
}
