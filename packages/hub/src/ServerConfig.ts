/**
 * Server configs as apps write them: the `mcpServers` files of Claude
 * Desktop and Cursor, the `servers` files of VS Code and the gemini-cli
 * variant, normalised to one shape.
 *
 * ```json
 * { "mcpServers": {
 *     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] },
 *     "remote": { "url": "https://example.com/mcp", "headers": { "X-Team": "${TEAM:-core}" } },
 *     "gemini-style": { "httpUrl": "https://example.com/mcp", "timeout": 30000, "trust": true },
 *     "socket": { "url": "wss://example.com/mcp", "headers": { "Authorization": "Bearer ${TOKEN}" } },
 *     "old": { "type": "sse", "url": "https://example.com/sse", "disabled": true }
 * } }
 * ```
 *
 * A normalised `ServerConfig` keeps `${VAR}` references as written (so a
 * stored config holds no secret that came from the environment); `resolve`
 * expands them through the current `ConfigProvider` (`${VAR}`, or
 * `${VAR:-default}`) right before a server starts. One bad entry gives one
 * `ServerConfigError` naming the server and the key; the other entries are
 * unaffected.
 *
 * @since 0.2.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import { ServerAuth } from "@mcp-effect/oauth"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as internal from "./internal/config.js"
import type { ConfigFileError, ServerConfigError } from "./internal/errors.js"

/**
 * How a server is reached. `Http` is Streamable HTTP (falling back to the
 * 2024-11-05 HTTP+SSE transport when the server answers initialize with
 * 400/404/405); `Sse` speaks the 2024-11-05 transport from the start;
 * `WebSocket` is one WebSocket (subprotocol `mcp`) to a `ws:` / `wss:` URL.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Transport = Schema.Union(
  Schema.TaggedStruct("Stdio", {
    command: Schema.String,
    args: Schema.Array(Schema.String),
    env: Schema.Record({ key: Schema.String, value: Schema.String }),
    cwd: Schema.optional(Schema.String)
  }),
  Schema.TaggedStruct("Http", {
    url: Schema.String,
    headers: Schema.Record({ key: Schema.String, value: Schema.String })
  }),
  Schema.TaggedStruct("Sse", {
    url: Schema.String,
    headers: Schema.Record({ key: Schema.String, value: Schema.String })
  }),
  Schema.TaggedStruct("WebSocket", {
    url: Schema.String,
    /** Handshake headers (Node only: a browser sends none). */
    headers: Schema.Record({ key: Schema.String, value: Schema.String })
  })
)

/**
 * @since 0.2.0
 * @category models
 */
export type Transport = typeof Transport.Type

/**
 * One server, normalised, with `${VAR}` references unexpanded. This schema
 * is also the stored form (`auth` is kept in its file form, so secrets
 * written as `${VAR}` never reach storage).
 *
 * @since 0.2.0
 * @category schemas
 */
export const ServerConfig = Schema.Struct({
  name: Schema.String,
  transport: Transport,
  disabled: Schema.Boolean,
  /** Trusted servers' annotations count (approval, replay after a reconnect). */
  trusted: Schema.Boolean,
  auth: Schema.optional(Schema.encodedSchema(ServerAuth.ServerAuth)),
  /** The idle timeout of each request, in milliseconds (gemini-cli's `timeout`). */
  timeoutMillis: Schema.optional(Schema.Number)
})

/**
 * @since 0.2.0
 * @category models
 */
export interface ServerConfig extends Schema.Schema.Type<typeof ServerConfig> {}

/**
 * A config with every `${VAR}` expanded and its secrets `Redacted`: what a
 * `TransportFactory` builds from.
 *
 * @since 0.2.0
 * @category models
 */
export interface Resolved {
  readonly name: string
  readonly trusted: boolean
  readonly transport:
    | {
      readonly _tag: "Stdio"
      readonly command: string
      readonly args: ReadonlyArray<string>
      readonly env: Readonly<Record<string, string>>
      readonly cwd: string | undefined
      /**
       * What the `${VAR}` references of `args` and `env` expanded to: masked,
       * with the values of `env`, in the server's stderr.
       *
       * @since 0.3.0
       */
      readonly secrets?: ReadonlyArray<string> | undefined
    }
    | {
      readonly _tag: "Http" | "Sse" | "WebSocket"
      readonly url: URL
      /** Every header value is treated as a secret. */
      readonly headers: Readonly<Record<string, Redacted.Redacted<string>>>
    }
  readonly auth: ServerAuth.ServerAuth
  readonly timeout: Duration.Duration | undefined
}

export {
  /**
   * One server entry that cannot be used: which server, which key (a path
   * such as `mcpServers.github.env.TOKEN`), and why. Never quotes a value.
   *
   * @since 0.2.0
   * @category errors
   */
  ServerConfigError
} from "./internal/errors.js"

export {
  /**
   * A config file that cannot be read at all (missing, not JSON, or with
   * neither `mcpServers` nor `servers`).
   *
   * @since 0.2.0
   * @category errors
   */
  ConfigFileError
} from "./internal/errors.js"

/**
 * What a file held: the usable servers, in file order, and one error per
 * unusable one.
 *
 * @since 0.2.0
 * @category models
 */
export interface Parsed {
  readonly servers: ReadonlyArray<ServerConfig>
  readonly errors: ReadonlyArray<ServerConfigError>
}

/**
 * Normalises one entry of any supported format. `section` is the file key
 * the entry came from (`mcpServers` or `servers`), used in error keys.
 *
 * Accepted keys: `command`, `args`, `env`, `cwd` (stdio); `url`, `headers`
 * (HTTP, WebSocket); `type` (`"stdio" | "http" | "streamable-http" | "sse"`,
 * VS Code; `"ws" | "websocket"`); `httpUrl`, `timeout` (milliseconds),
 * `trust` (gemini-cli); `disabled`, `trusted`, `auth` (a `ServerAuth`). A
 * plain `url` without `type` is chosen by its scheme: `ws:` / `wss:` is a
 * WebSocket server, `http:` / `https:` Streamable HTTP, which falls back to
 * HTTP+SSE on its own, so gemini-cli's SSE `url` entries work too. Any other
 * scheme is a `ServerConfigError` naming the allowed ones.
 * Other keys are ignored.
 *
 * @since 0.2.0
 * @category decoding
 */
export const fromEntry: (
  name: string,
  entry: unknown,
  section?: string
) => Either.Either<ServerConfig, ServerConfigError> = internal.fromEntry

/**
 * Reads a whole file's JSON value: `{ "mcpServers": { ... } }` or
 * `{ "servers": { ... } }` (both may appear).
 *
 * @since 0.2.0
 * @category decoding
 */
export const fromJson: (json: unknown) => Either.Either<Parsed, ConfigFileError> = internal.fromJson

/**
 * Reads and parses a config file.
 *
 * @since 0.2.0
 * @category decoding
 */
export const load: (path: string) => Effect.Effect<Parsed, ConfigFileError, FileSystem.FileSystem> = internal.load

/**
 * Expands every `${VAR}` / `${VAR:-default}` through the current
 * `ConfigProvider`, checks URLs and decodes `auth` (secrets become
 * `Redacted`). A variable that is not set and has no default fails with the
 * key it appears under. A `url` without `type` whose scheme came from a
 * variable is picked by its expanded scheme (`ws:` / `wss:`: WebSocket).
 *
 * @since 0.2.0
 * @category resolving
 */
export const resolve: (config: ServerConfig) => Effect.Effect<Resolved, ServerConfigError> = internal.resolve

/**
 * The kinds of transport, as `transportKind` names them.
 *
 * @since 0.2.0
 * @category models
 */
export type TransportKind = "stdio" | "http" | "sse" | "websocket"

const kinds: Record<Transport["_tag"], TransportKind> = {
  Stdio: "stdio",
  Http: "http",
  Sse: "sse",
  WebSocket: "websocket"
}

/**
 * The kind of transport, for display: of a config, or of a resolved one (a
 * `url` written as `${VAR}` without `type` is known to be a WebSocket only
 * once resolved).
 *
 * @since 0.2.0
 * @category utils
 */
export const transportKind = (config: { readonly transport: { readonly _tag: Transport["_tag"] } }): TransportKind =>
  kinds[config.transport._tag]
