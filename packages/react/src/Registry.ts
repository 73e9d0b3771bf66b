/**
 * Hooks over a `@mcp-effect/hub` `ServerRegistry` in the provider's Layer
 * (`BrowserHub.layer`, `ServerRegistry.layer`): the servers with their
 * statuses and session ids, the tools of every connected server under their
 * registry names, and one server's client for the client hooks.
 *
 * @since 0.2.0
 */
import type * as McpClient from "@mcp-effect/core/McpClient"
import * as ServerRegistry from "@mcp-effect/hub/ServerRegistry"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { useSubscribable } from "./Live.js"
import { type Result, useEffectResult, useService, valueOf } from "./RuntimeProvider.js"

/**
 * The registry of the provider's Layer.
 *
 * @since 0.2.0
 * @category hooks
 */
export const useRegistry = (): Result<ServerRegistry.Service> => useService(ServerRegistry.ServerRegistry)

const none: ReadonlyArray<never> = []

/**
 * Every server with its status (`Connecting`, `Connected` with session id,
 * protocol version and server info, `Reconnecting`, `NeedsAuth`, `Failed`
 * with the error, `Disabled`), in the registry's order.
 *
 * @since 0.2.0
 * @category hooks
 */
export const useServers = (): ReadonlyArray<ServerRegistry.ServerStatus> =>
  useSubscribable(valueOf(useRegistry())?.servers, none)

/**
 * One server's status, or `undefined` when there is no such server.
 *
 * @since 0.2.0
 * @category hooks
 */
export const useServer = (name: string): ServerRegistry.ServerStatus | undefined =>
  useServers().find((server) => server.name === name)

/**
 * The tools of every connected server, under their registry names (unique
 * and provider-safe), with the server each comes from.
 *
 * @since 0.2.0
 * @category hooks
 */
export const useHubTools = (): ReadonlyArray<ServerRegistry.HubTool> =>
  useSubscribable(valueOf(useRegistry())?.tools, none)

/**
 * The client of one server, for `Client.useTools`, `ToolCall.useToolCall`
 * (`{ client }`) and `Tasks.useTask`. `undefined` while the server has no
 * client (connecting, failed, disabled, unknown); a reconnect with a new
 * client gives the new one.
 *
 * @since 0.2.0
 * @category hooks
 */
export const useServerClient = (name: string): McpClient.Service | undefined => {
  const registry = valueOf(useRegistry())
  const status = useServer(name)
  // a new run (a reconnect, an edit) changes the status object; look the client up again then
  const result = useEffectResult(
    registry === undefined ?
      Effect.succeed(undefined) :
      Effect.option(registry.client(name)).pipe(Effect.map(Option.getOrUndefined)),
    [registry, name, status?._tag, status?.sessionId]
  )
  return valueOf(result)
}
