import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as ApprovalPolicy from "../../ApprovalPolicy.js"
import * as ApprovalRequest from "../../ApprovalRequest.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as ToolCallLog from "../../ToolCallLog.js"
import * as KeyValueStore from "../platform/keyValueStore.js"
import { hasWebCrypto, sha256Hex } from "../platform/webCrypto.js"
import { Origin } from "./origin.js"

/** @internal */
export const Remembered = Schema.Struct({
  server: Schema.String,
  tool: Schema.String,
  definition: Schema.String,
  decidedAt: Schema.DateTimeUtcFromNumber,
  /** The app whose calls the decision covers; absent: the model's own calls (and every decision stored before 0.5). */
  origin: Schema.optional(Origin)
})

/** @internal */
export type Remembered = typeof Remembered.Type

/** @internal */
export type RememberedEncoded = typeof Remembered.Encoded

const allow = (reason: "Auto" | "AllowList" | "Remembered" | "TrustedServer"): ApprovalPolicy.Verdict => ({
  _tag: "Allow",
  reason
})
const deny = (reason: string): ApprovalPolicy.Verdict => ({ _tag: "Deny", reason })
const ask: ApprovalPolicy.Verdict = { _tag: "Ask" }

/**
 * What a person approved when they approved a tool "always": the parts of
 * its definition that say what it does. A server that changes them later
 * (a "rug pull") gets asked about again.
 *
 * @internal
 */
export const definitionOf = ApprovalRequest.definitionOf

const defaultPrefix = "mcp-effect/approvals/"

/**
 * The longest key kept readable, counted as a file-system store names its
 * file (`encodeURIComponent` of the key): file names hold 255 bytes.
 */
const maxReadableKey = 200

/**
 * A decision's key: the model's own calls keep the key of a decision stored
 * before origins were (so those keep meaning the model's calls); an app's
 * calls add its URI as one more segment. Every part is URI-encoded, so no
 * part holds a `/` and no URI can spell another origin's key.
 *
 * A key longer than `maxReadableKey` (an app's long `ui://` URI) is kept as
 * `sha256:<hex>` of its readable form after the prefix instead: `:` is
 * encoded in every readable part, so no readable key spells a hashed one.
 * `None` when such a key cannot be hashed (no WebCrypto: a browser page over
 * plain http); the decision is then neither stored nor found.
 */
const keyOf = (
  prefix: string,
  server: string,
  tool: string,
  origin: ToolCallLog.Origin | undefined
): Effect.Effect<Option.Option<string>> => {
  const readable = `${encodeURIComponent(server)}/${encodeURIComponent(tool)}${
    origin === undefined ? "" : `/app/${encodeURIComponent(origin.uri)}`
  }`
  if (encodeURIComponent(prefix + readable).length <= maxReadableKey) {
    return Effect.succeed(Option.some(prefix + readable))
  }
  return hasWebCrypto() ?
    Effect.map(sha256Hex(readable), (digest) => Option.some(`${prefix}sha256:${digest}`)) :
    Effect.succeed(Option.none())
}

/** Who a request's decision is about: the origin as the call carried it, not as it is shown. */
const originOf = (request: ApprovalRequest.ApprovalRequest) => request.exactOrigin ?? request.origin

const sameOrigin = (a: ToolCallLog.Origin | undefined, b: ToolCallLog.Origin | undefined) =>
  a === undefined ? b === undefined : b !== undefined && a._tag === b._tag && a.uri === b.uri

const rulesOf = (options: ApprovalPolicy.Options, server: string) => {
  const all = options.tools?.["*"]
  const own = Object.hasOwn(options.tools ?? {}, server) ? options.tools?.[server] : undefined
  return {
    allow: new Set([...(all?.allow ?? []), ...(own?.allow ?? [])]),
    deny: new Set([...(all?.deny ?? []), ...(own?.deny ?? [])])
  }
}

/** @internal */
export const make = (
  options: ApprovalPolicy.Options
): Effect.Effect<ApprovalPolicy.Service, never, KeyValueStore.KeyValueStore> =>
  Effect.gen(function*() {
    const store = (yield* KeyValueStore.KeyValueStore).forSchema(Remembered)
    const prefix = options.prefix ?? defaultPrefix
    const trustedServers = new Set(options.trustedServers ?? [])

    const isRemembered = (server: string, tool: McpSchema.Tool, origin: ToolCallLog.Origin | undefined) =>
      keyOf(prefix, server, tool.name, origin).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.succeedNone, onSome: store.get })),
        Effect.map(Option.exists((remembered) =>
          remembered.server === server && remembered.tool === tool.name &&
          remembered.definition === definitionOf(tool) && sameOrigin(remembered.origin, origin)
        )),
        Effect.catchAll((error) =>
          Effect.as(Effect.logWarning("mcp: could not read a remembered approval; asking again", error.message), false)
        )
      )

    const service: ApprovalPolicy.Service = {
      options,
      request: ApprovalRequest.make,
      trusts: (server) => trustedServers.has(server),
      evaluate: (request) =>
        Effect.gen(function*() {
          const rules = rulesOf(options, request.server)
          if (rules.deny.has(request.tool.name)) {
            return deny(`${request.tool.name} is on the deny list of ${request.server}`)
          }
          if (options.mode === "auto") return allow("Auto")
          if (rules.allow.has(request.tool.name)) return allow("AllowList")
          if (yield* isRemembered(request.server, request.listed ?? request.tool, originOf(request))) {
            return allow("Remembered")
          }
          if (options.mode === "trusted-only" && request.trusted) return allow("TrustedServer")
          return ask
        }),
      remember: (request) => {
        const { server } = request
        const tool = request.listed ?? request.tool
        const origin = originOf(request)
        return Effect.flatMap(keyOf(prefix, server, tool.name, origin), (key) =>
          Option.isNone(key) ?
            Effect.logWarning("mcp: could not store an approval: its key is too long to keep without WebCrypto") :
            DateTime.now.pipe(
              Effect.flatMap((decidedAt) =>
                store.set(key.value, {
                  server,
                  tool: tool.name,
                  definition: definitionOf(tool),
                  decidedAt,
                  ...(origin === undefined ? {} : { origin: { _tag: origin._tag, uri: origin.uri } })
                })
              ),
              Effect.catchAll((error) => Effect.logWarning("mcp: could not store an approval", error.message))
            ))
      },
      forget: (server, tool, origin) =>
        keyOf(prefix, server, tool, origin).pipe(
          Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: store.remove })),
          Effect.catchAll((error) => Effect.logWarning("mcp: could not forget an approval", error.message))
        )
    }
    return service
  })
