/**
 * MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865): a server links a tool
 * to an interactive UI, an HTML document served as a `ui://` resource with
 * the MIME type `text/html;profile=mcp-app`, which a host renders in a
 * sandboxed iframe next to the conversation.
 *
 * This module is the protocol side a host needs: the client capability to
 * advertise, a tool's UI metadata (`_meta.ui.resourceUri`, `visibility`),
 * reading a UI resource through `McpClient` (both protocol eras: it is a
 * plain `resources/read`) with its declared content security policy and
 * permissions checked, and the policy text and iframe attributes a host
 * applies. The React bindings render it (`McpApp`); the hub's `AppHost`
 * routes the UI's tool calls through approval, history and pinning.
 *
 * Visibility: a tool whose `_meta.ui.visibility` leaves out `"model"` is
 * for its app only and must never be offered to a model. `isModelVisible`
 * is the one predicate every model-facing list uses (the hub's `tools`,
 * `ToolFormat`, `McpToolkit`, tool search).
 *
 * @example
 * ```ts
 * import { ClientExtensions, McpApps, McpClient } from "@mcp-effect/core"
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import * as Option from "effect/Option"
 *
 * // servers see that this client renders MCP Apps
 * export const Client = McpClient.layer({ clientInfo: { name: "my-app", version: "1.0.0" } }).pipe(
 *   Layer.provide(ClientExtensions.layer({ ...McpApps.capability }))
 * )
 *
 * export const firstUi = Effect.gen(function*() {
 *   const client = yield* McpClient.McpClient
 *   const tools = yield* client.listTools
 *   const withUi = tools.find((tool) => Option.isSome(McpApps.resourceUri(tool)))
 *   if (withUi === undefined) return undefined
 *   const ui = yield* McpApps.read(client, Option.getOrThrow(McpApps.resourceUri(withUi)))
 *   return { html: ui.html, csp: McpApps.contentSecurityPolicy(ui.csp) }
 * })
 * ```
 *
 * @since 0.4.0
 */
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as internal from "./internal/extensions/apps.js"
import type * as McpClient from "./McpClient.js"
import type * as McpError from "./McpError.js"
import type * as McpSchema from "./McpSchema.js"

/**
 * The extension's identifier.
 *
 * @since 0.4.0
 * @category constants
 */
export const extensionId: "io.modelcontextprotocol/ui" = internal.extensionId

/**
 * The MIME type of a UI resource.
 *
 * @since 0.4.0
 * @category constants
 */
export const mimeType: "text/html;profile=mcp-app" = internal.mimeType

/**
 * The client capability entry for the extension (the MIME types this host
 * renders), to spread into `ClientExtensions.layer`.
 *
 * @since 0.4.0
 * @category constants
 */
export const capability: {
  readonly "io.modelcontextprotocol/ui": { readonly mimeTypes: ReadonlyArray<string> }
} = { [internal.extensionId]: { mimeTypes: [internal.mimeType] } }

/**
 * Who may call a tool: `"model"` (the agent) and `"app"` (the UI of the
 * same server).
 *
 * @since 0.4.0
 * @category models
 */
export type Visibility = "model" | "app"

/**
 * The `ui://` resource a tool's UI is served at: `_meta.ui.resourceUri`
 * (or the draft key `_meta["ui/resourceUri"]`), when it is a `ui://` URI.
 *
 * @since 0.4.0
 * @category getters
 */
export const resourceUri: (tool: McpSchema.Tool) => Option.Option<string> = internal.resourceUri

/**
 * Who may call the tool, from `_meta.ui.visibility`: both when absent. A
 * `visibility` that is present but not a list allows nobody (a server's
 * malformed claim never makes a tool visible to the model); unknown entries
 * are ignored.
 *
 * @since 0.4.0
 * @category getters
 */
export const visibility: (tool: McpSchema.Tool) => ReadonlyArray<Visibility> = internal.visibility

/**
 * Whether a tool may be offered to a model. Every list of tools a model
 * sees is filtered with this predicate.
 *
 * @since 0.4.0
 * @category predicates
 */
export const isModelVisible: (tool: McpSchema.Tool) => boolean = internal.isModelVisible

/**
 * Whether an app (the UI of the tool's server) may call the tool.
 *
 * @since 0.4.0
 * @category predicates
 */
export const isAppVisible: (tool: McpSchema.Tool) => boolean = internal.isAppVisible

/**
 * The origins a UI resource declares in `_meta.ui.csp`, each a
 * `scheme://host[:port]` (host optionally `*.`-prefixed). Empty lists
 * mean none: no network access, no outside scripts, no nested frames.
 *
 * @since 0.4.0
 * @category models
 */
export interface Csp {
  /** `connect-src`: fetch, XHR, WebSocket. */
  readonly connectDomains: ReadonlyArray<string>
  /** Scripts, styles, images, fonts and media. */
  readonly resourceDomains: ReadonlyArray<string>
  /** `frame-src`: nested iframes. */
  readonly frameDomains: ReadonlyArray<string>
  /** `base-uri`. */
  readonly baseUriDomains: ReadonlyArray<string>
}

/**
 * A browser capability a UI resource asks for in `_meta.ui.permissions`.
 *
 * @since 0.4.0
 * @category models
 */
export type Permission = "camera" | "microphone" | "geolocation" | "clipboardWrite"

/**
 * A UI resource as read: the HTML and what it declares.
 *
 * @since 0.4.0
 * @category models
 */
export interface UiResource {
  readonly uri: string
  readonly html: string
  readonly csp: Csp
  readonly permissions: ReadonlyArray<Permission>
  /** Whether the UI wants a visible border (`undefined`: the host decides). */
  readonly prefersBorder: boolean | undefined
  /** The dedicated sandbox origin the server asks for (host-specific; this host does not grant it). */
  readonly domain: string | undefined
}

/**
 * A resource that is not a UI this host can render: `NotUiResource` (the
 * URI is not `ui://`; nothing was read), `NotFound` (no contents),
 * `WrongMimeType`, `NotHtml` (a blob that does not decode), `InvalidCsp`
 * (a declared source that is not an origin, such as `'unsafe-eval'`, `*`
 * or one holding `;`: it could widen or rewrite the policy).
 *
 * @since 0.4.0
 * @category errors
 */
export class McpAppsError extends Schema.TaggedError<McpAppsError>("@mcp-effect/core/McpAppsError")("McpAppsError", {
  reason: Schema.Literal("NotUiResource", "NotFound", "WrongMimeType", "NotHtml", "InvalidCsp"),
  uri: Schema.String,
  message: Schema.String
}) {}

const fail = (problem: internal.Problem) => new McpAppsError(problem)

/**
 * Reads a UI resource (`resources/read`) and checks it: its MIME type and
 * its declared CSP and permissions (from the content item's `_meta.ui`).
 *
 * @since 0.4.0
 * @category constructors
 */
export const read = (
  client: McpClient.Service,
  uri: string
): Effect.Effect<UiResource, McpAppsError | McpError.McpClientError> => internal.read(client, uri, fail)

/**
 * Checks a `resources/read` result as `read` does, without reading.
 *
 * @since 0.4.0
 * @category constructors
 */
export const fromResult = (
  uri: string,
  result: McpSchema.ReadResourceResult
): Either.Either<UiResource, McpAppsError> => Either.mapLeft(internal.fromContents(uri, result), fail)

/**
 * The Content-Security-Policy for a UI: nothing but inline scripts and
 * styles, `data:`/`blob:` images and media, and the declared origins in
 * their directives (`connect-src`, `frame-src`, `base-uri` are `'none'`
 * unless declared; forms and plugins are always refused).
 *
 * @since 0.4.0
 * @category utils
 */
export const contentSecurityPolicy: (csp: Csp) => string = internal.contentSecurityPolicy

/**
 * The iframe `sandbox` attribute for a UI: scripts only, in an opaque
 * origin (no `allow-same-origin`, so the UI reaches neither the host's
 * storage nor its DOM), no top navigation, no popups, no forms.
 *
 * @since 0.4.0
 * @category constants
 */
export const sandbox = "allow-scripts"

/**
 * The iframe `allow` attribute (Permissions Policy) for the permissions a
 * UI declares, each granted by the host: `camera; clipboard-write`.
 *
 * @since 0.4.0
 * @category utils
 */
export const allow: (permissions: ReadonlyArray<Permission>) => string = internal.allow
