import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as ApprovalPolicy from "../../ApprovalPolicy.js"
import * as ApprovalRequest from "../../ApprovalRequest.js"
import type * as McpSchema from "../../McpSchema.js"
import * as KeyValueStore from "../wire/keyValueStore.js"

/** @internal */
export const Remembered = Schema.Struct({
  server: Schema.String,
  tool: Schema.String,
  definition: Schema.String,
  decidedAt: Schema.DateTimeUtcFromNumber
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
    const keyOf = (server: string, tool: string) => `${prefix}${encodeURIComponent(server)}/${encodeURIComponent(tool)}`

    const isRemembered = (server: string, tool: McpSchema.Tool) =>
      store.get(keyOf(server, tool.name)).pipe(
        Effect.map(Option.exists((remembered) => remembered.definition === definitionOf(tool))),
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
          if (yield* isRemembered(request.server, request.listed ?? request.tool)) return allow("Remembered")
          if (options.mode === "trusted-only" && request.trusted) return allow("TrustedServer")
          return ask
        }),
      remember: ({ listed, server, tool: shown }) => {
        const tool = listed ?? shown
        return DateTime.now.pipe(
          Effect.flatMap((decidedAt) =>
            store.set(keyOf(server, tool.name), { server, tool: tool.name, definition: definitionOf(tool), decidedAt })
          ),
          Effect.catchAll((error) => Effect.logWarning("mcp: could not store an approval", error.message))
        )
      },
      forget: (server, tool) =>
        store.remove(keyOf(server, tool)).pipe(
          Effect.catchAll((error) => Effect.logWarning("mcp: could not forget an approval", error.message))
        )
    }
    return service
  })
