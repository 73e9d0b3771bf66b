/**
 * The `_meta` every request of the modern era carries: protocol version,
 * client info and client capabilities (and, when the app set one, the log
 * level), beside whatever `_meta` the request already has (a progress token).
 */
import type * as McpSchema from "../../McpSchema.js"
import { MetaKey } from "../wire/schema/modern.js"

/**
 * Who the client is, as every modern request says it.
 *
 * @internal
 */
export interface Identity {
  readonly clientInfo: McpSchema.Implementation
  readonly capabilities: McpSchema.ClientCapabilities
}

/**
 * The client capabilities of the legacy era as the modern era declares
 * them: `roots` carries no `listChanged` (there is no such notification any
 * more), the legacy `tasks` capability is gone, and the tasks extension is
 * declared (the session follows every task handle a server answers with).
 *
 * @internal
 */
export const modernCapabilities = (capabilities: McpSchema.ClientCapabilities): McpSchema.ClientCapabilities => {
  const { roots, tasks: _tasks, ...rest } = capabilities
  return {
    ...rest,
    ...(roots !== undefined ? { roots: {} } : {}),
    extensions: { ...rest.extensions, [tasksExtension]: {} }
  }
}

/**
 * The identifier of the tasks extension.
 *
 * @internal
 */
export const tasksExtension = "io.modelcontextprotocol/tasks"

/**
 * `params` with the modern `_meta` keys added (their values win over any the
 * caller set; other keys are kept).
 *
 * @internal
 */
export const withModernMeta = (
  params: Record<string, unknown> | undefined,
  version: string,
  identity: Identity,
  logLevel?: McpSchema.LoggingLevel | undefined
): Record<string, unknown> => ({
  ...params,
  _meta: {
    ...(params?._meta as Record<string, unknown> | undefined),
    [MetaKey.ProtocolVersion]: version,
    [MetaKey.ClientInfo]: identity.clientInfo,
    [MetaKey.ClientCapabilities]: identity.capabilities,
    ...(logLevel !== undefined ? { [MetaKey.LogLevel]: logLevel } : {})
  }
})

/**
 * The version a request's own envelope names (a `server/discover` probe,
 * sent before any version is agreed on, carries the one it offers).
 *
 * @internal
 */
export const versionIn = (params: Record<string, unknown> | undefined): string | undefined => {
  const meta = params?._meta
  const version = typeof meta === "object" && meta !== null ?
    (meta as Record<string, unknown>)[MetaKey.ProtocolVersion] :
    undefined
  return typeof version === "string" ? version : undefined
}
