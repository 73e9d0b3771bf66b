/**
 * Keeps, per server identity (its name in the app and where the transport
 * reaches it: see `ServerIdentity`), what a session needs to continue after
 * the app restarts: the negotiated protocol version, server info and capabilities,
 * the server's session id, the last event id of the server's stream, the
 * resource subscriptions and the log level. A session started with a
 * `server` name and a `SessionStore` in the context resumes the stored
 * session instead of initializing a new one (when the transport can: see
 * `McpTransport.Resumption`), saves it once it is ready, and removes it
 * when it is closed on purpose. A crash or a reload leaves it in place.
 * It also remembers the protocol era each server spoke (`Era`), so later
 * sessions do not probe a 2025 server with `server/discover` again.
 *
 * Backed by `@effect/platform`'s `KeyValueStore`: `layerMemory` here,
 * `NodeKeyValueStore.layerFileSystem`, `BrowserKeyValueStore.layerLocalStorage`
 * or any other `KeyValueStore` layer. The session id is a secret (over HTTP
 * whoever holds it speaks in the session): it is `Redacted` in memory and
 * in errors and logs; give the store a `key` to seal it at rest, else keep
 * the backing store where you would keep tokens.
 *
 * @since 0.2.0
 */
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as internal from "./internal/engine/sessionStore.js"
import * as keyValueStore from "./internal/platform/keyValueStore.js"
import * as McpSchema from "./McpSchema.js"

/**
 * One stored session.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Stored = /* @__PURE__ */ Schema.Struct({
  protocolVersion: Schema.String,
  serverInfo: McpSchema.Implementation,
  capabilities: McpSchema.ServerCapabilities,
  instructions: Schema.optional(Schema.String),
  sessionId: Schema.Redacted(Schema.String),
  /** The last event id read, per stream (`"get"`: the server's own stream). */
  lastEventIds: Schema.Record({ key: Schema.String, value: Schema.String }),
  subscriptions: Schema.Array(Schema.String),
  loggingLevel: Schema.optional(McpSchema.LoggingLevel)
})

/**
 * @since 0.2.0
 * @category schemas
 */
export type Stored = typeof Stored.Type

/**
 * Who a stored session belongs to: the server's name in the app and its
 * `endpoint`, where the transport reaches it (Streamable HTTP: the URL;
 * `McpTransport`'s `endpoint`). A session is only ever offered back to the
 * same name *and* endpoint, so a server name moved to another URL never
 * sends the old `Mcp-Session-Id` or `Last-Event-ID` there. The endpoint may
 * carry secrets (an API key in the query string): it is only hashed
 * (SHA-256) into the key, never stored or logged. A plain string is a name
 * without an endpoint.
 *
 * @since 0.3.0
 * @category models
 */
export interface ServerIdentity {
  readonly name: string
  readonly endpoint?: string | undefined
}

/**
 * The protocol era a server spoke last: `"legacy"` (2025 revisions, opened
 * with `initialize`) or `"modern"` (2026-07-28, `server/discover`). A
 * session tries it first; when it fails, it probes as usual and remembers
 * what it found.
 *
 * @since 0.3.0
 * @category models
 */
export type Era = "legacy" | "modern"

/**
 * The store could not be read or written, or held something that is not a
 * stored session.
 *
 * @since 0.2.0
 * @category errors
 */
export class SessionStoreError extends Schema.TaggedError<SessionStoreError>("@mcp-effect/core/SessionStoreError")(
  "SessionStoreError",
  {
    server: Schema.String,
    operation: Schema.Literal("get", "set", "remove"),
    message: Schema.String,
    cause: Schema.optional(Schema.Defect)
  }
) {}

/**
 * @since 0.2.0
 * @category models
 */
export interface Service {
  readonly get: (server: string | ServerIdentity) => Effect.Effect<Option.Option<Stored>, SessionStoreError>
  readonly set: (server: string | ServerIdentity, stored: Stored) => Effect.Effect<void, SessionStoreError>
  /** Removes the stored session (not the remembered era). */
  readonly remove: (server: string | ServerIdentity) => Effect.Effect<void, SessionStoreError>
  /**
   * The era the server spoke last, if known.
   *
   * @since 0.3.0
   */
  readonly getEra: (server: string | ServerIdentity) => Effect.Effect<Option.Option<Era>, SessionStoreError>
  /**
   * Remembers the era the server spoke.
   *
   * @since 0.3.0
   */
  readonly setEra: (server: string | ServerIdentity, era: Era) => Effect.Effect<void, SessionStoreError>
}

/**
 * @since 0.2.0
 * @category tags
 */
export class SessionStore extends Context.Tag("@mcp-effect/core/SessionStore")<SessionStore, Service>() {}

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /**
   * Prepended to the server name to make the key (then `@` and a hash of the
   * endpoint, when there is one). The era is kept under `prefix` + `era/` + the
   * same. Default `"mcp-effect/session/"`.
   */
  readonly prefix?: string | undefined
  /**
   * An AES-GCM key (WebCrypto) to seal the session id with before it is
   * stored: without the key the stored value is of no use. A session sealed
   * with another key, or stored unsealed, then reads as a
   * `SessionStoreError` (and the session starts afresh). In a browser, keep
   * a non-extractable key in IndexedDB; on a server, import it from your
   * secret store. Default: the id is stored as the server gave it.
   */
  readonly key?: CryptoKey | undefined
}

/**
 * A store over a `KeyValueStore`, each session a schema-encoded JSON value
 * under `prefix` + the server name + `@` + the first 32 hex digits of the
 * SHA-256 of its endpoint. Where WebCrypto is missing (a browser page on an
 * insecure origin) an identity with an endpoint cannot be hashed: nothing is
 * stored for it and nothing is read.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (store: KeyValueStore.KeyValueStore, options?: Options): Service =>
  internal.make(store, options, { Stored, SessionStoreError })

/**
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  options?: Options
): Layer.Layer<SessionStore, never, KeyValueStore.KeyValueStore> =>
  Layer.effect(SessionStore, Effect.map(keyValueStore.KeyValueStore, (store) => make(store, options)))

/**
 * A store in memory: sessions survive a new client in the same process
 * (tests, a client rebuilt after a configuration change), not a restart.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerMemory: Layer.Layer<SessionStore> = /* @__PURE__ */ Layer.provide(
  /* @__PURE__ */ layer(),
  keyValueStore.layerMemory
)
