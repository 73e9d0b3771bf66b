/**
 * The protocol extensions an app's client declares: providing this service
 * to `McpClient` (or `ClientSession.layer`) puts them under `extensions` in
 * the client capabilities it sends, by identifier, each with its settings.
 * An app that uses several extensions provides one record with all of them.
 *
 * @example
 * ```ts
 * import { ClientExtensions, McpClient, Skills } from "@mcp-effect/core"
 * import * as Layer from "effect/Layer"
 *
 * // the client tells servers it understands the skills extension
 * const Client = McpClient.layer({ clientInfo: { name: "my-app", version: "1.0.0" } }).pipe(
 *   Layer.provide(ClientExtensions.layer({ ...Skills.capability }))
 * )
 * ```
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import type * as McpSchema from "./McpSchema.js"

/**
 * Extension identifier → the settings declared for it (`{}` for none).
 *
 * @since 0.2.0
 * @category models
 */
export type Service = Readonly<Record<string, McpSchema.JsonObject>>

/**
 * @since 0.2.0
 * @category tags
 */
export class ClientExtensions extends Context.Tag("@mcp-effect/core/ClientExtensions")<ClientExtensions, Service>() {}

/**
 * @since 0.2.0
 * @category layers
 */
export const layer = (extensions: Service): Layer.Layer<ClientExtensions> => Layer.succeed(ClientExtensions, extensions)
