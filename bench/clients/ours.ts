/**
 * Our client: `McpClient` from `@mcp-effect/core` over `StdioTransport` or
 * `HttpTransport`, driven the Effect way (the timed loops run inside one
 * Effect; concurrency is `Effect.forEach` with unbounded concurrency).
 *
 * One `ManagedRuntime` holds the platform services (process executor, HTTP
 * client); each session is `McpClient.make` in its own `Scope`.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import { McpClient, type McpTransport } from "@mcp-effect/core"
import { HttpTransport } from "@mcp-effect/transport-http"
import { NodeStdioTransport, StdioTransport } from "@mcp-effect/transport-stdio"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import { type ServerCommand, serverEnv } from "../servers.js"
import { checkEcho, countOf, echoCall, type Holder, type Subject } from "../subject.js"

export type HttpClientKind = "fetch" | "undici"

type Platform = CommandExecutor.CommandExecutor | HttpClient.HttpClient

export interface Ours {
  /** `node`: `NodeStdioTransport` (the default on Node); `command`: `StdioTransport` on the platform's `CommandExecutor`. */
  readonly startStdio: (server: ServerCommand, backend?: "node" | "command") => Promise<Subject>
  /** A connected, initialized stdio session (`NodeStdioTransport`); resolves with its closer. */
  readonly openStdio: (server: ServerCommand) => Promise<() => Promise<void>>
  /** A stdio session (`NodeStdioTransport`) for the in-flight heap metric. */
  readonly startHolder: (server: ServerCommand) => Promise<Holder>
  readonly startHttp: (url: string) => Promise<Subject>
  /** A connected, initialized HTTP session; resolves with its closer. */
  readonly openHttp: (url: string) => Promise<() => Promise<void>>
  readonly dispose: () => Promise<void>
}

const clientOptions: McpClient.Options = { clientInfo: { name: "bench-ours", version: "1.0.0" }, prefetch: false }

export const make = (httpClient: HttpClientKind): Ours => {
  const runtime = ManagedRuntime.make(
    Layer.merge(NodeContext.layer, httpClient === "undici" ? NodeHttpClient.layerUndici : FetchHttpClient.layer)
  )

  const open = async (
    transport: Layer.Layer<McpTransport.McpTransport, never, Platform>
  ): Promise<{ readonly client: McpClient.Service; readonly close: () => Promise<void> }> => {
    const scope = await runtime.runPromise(Scope.make())
    const client = await runtime.runPromise(
      McpClient.make(clientOptions).pipe(
        Effect.tap((client) => client.initialized),
        Effect.provide(transport),
        Scope.extend(scope)
      )
    )
    return { client, close: () => runtime.runPromise(Scope.close(scope, Exit.void)) }
  }

  const subject = async (
    transport: Layer.Layer<McpTransport.McpTransport, never, Platform>
  ): Promise<Subject> => {
    const { client, close } = await open(transport)
    checkEcho("ours", await runtime.runPromise(client.callTool(echoCall)))
    return {
      sequential: (n) =>
        runtime.runPromise(Effect.gen(function*() {
          const start = performance.now()
          for (let i = 0; i < n; i++) yield* client.callTool(echoCall)
          return performance.now() - start
        })),
      concurrent: (n) =>
        runtime.runPromise(Effect.gen(function*() {
          const start = performance.now()
          yield* Effect.forEach(Array.from({ length: n }), () => client.callTool(echoCall), {
            concurrency: "unbounded",
            discard: true
          })
          return performance.now() - start
        })),
      close
    }
  }

  const http = (url: string) => Layer.orDie(HttpTransport.layer({ url }))

  const stdioOptions = (server: ServerCommand) => ({ command: server.command, args: server.args, env: serverEnv })

  return {
    startStdio: (server, backend = "node") =>
      subject(
        backend === "node"
          ? NodeStdioTransport.layer(stdioOptions(server))
          : StdioTransport.layer(stdioOptions(server))
      ),
    openStdio: async (server) => (await open(NodeStdioTransport.layer(stdioOptions(server)))).close,
    startHolder: async (server) => {
      const { client, close } = await open(NodeStdioTransport.layer(stdioOptions(server)))
      return {
        hold: (n) =>
          runtime.runPromise(
            Effect.forEach(Array.from({ length: n }), () => client.callTool({ name: "hold" }), {
              concurrency: "unbounded",
              discard: true
            })
          ),
        pending: async () => countOf(await runtime.runPromise(client.callTool({ name: "pending" }))),
        release: () => runtime.runPromise(Effect.asVoid(client.callTool({ name: "release" }))),
        close
      }
    },
    startHttp: (url) => subject(http(url)),
    openHttp: async (url) => (await open(http(url))).close,
    dispose: () => runtime.dispose()
  }
}
