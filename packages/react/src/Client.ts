/**
 * Hooks over an `McpClient`: the one in the provider's Layer by default, or
 * any client passed in (a registry's `client(name)`, say).
 *
 * @since 0.2.0
 */
import type * as ClientSession from "@mcp-effect/core/ClientSession"
import * as McpClient from "@mcp-effect/core/McpClient"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import { useSubscribable } from "./Live.js"
import { type Result, useService, valueOf } from "./RuntimeProvider.js"

/**
 * The `McpClient` of the provider's Layer.
 *
 * @since 0.2.0
 * @category hooks
 */
export const useClient = (): Result<McpClient.Service> => useService(McpClient.McpClient)

const connecting: ClientSession.ConnectionState = { _tag: "Connecting", generation: 1 }
const none: ReadonlyArray<never> = []

const resolve = (client: McpClient.Service | undefined, fromContext: Result<McpClient.Service>) =>
  client ?? valueOf(fromContext)

/**
 * The client's connection state: `Connecting`, `Ready` (with the server's
 * info, capabilities and protocol version), `Reconnecting` or `Closed`.
 *
 * @since 0.2.0
 * @category hooks
 */
export const useConnectionState = (client?: McpClient.Service): ClientSession.ConnectionState => {
  const fromContext = useClient()
  return useSubscribable(resolve(client, fromContext)?.state, connecting)
}

/**
 * The server's tools, refreshed on `list_changed` and after reconnects.
 *
 * @since 0.2.0
 * @category hooks
 */
export const useTools = (client?: McpClient.Service): ReadonlyArray<McpSchema.Tool> => {
  const fromContext = useClient()
  return useSubscribable(resolve(client, fromContext)?.tools, none)
}

/**
 * The server's resources, refreshed on `list_changed` and after reconnects.
 *
 * @since 0.2.0
 * @category hooks
 */
export const useResources = (client?: McpClient.Service): ReadonlyArray<McpSchema.Resource> => {
  const fromContext = useClient()
  return useSubscribable(resolve(client, fromContext)?.resources, none)
}

/**
 * The server's prompts, refreshed on `list_changed` and after reconnects.
 *
 * @since 0.2.0
 * @category hooks
 */
export const usePrompts = (client?: McpClient.Service): ReadonlyArray<McpSchema.Prompt> => {
  const fromContext = useClient()
  return useSubscribable(resolve(client, fromContext)?.prompts, none)
}
