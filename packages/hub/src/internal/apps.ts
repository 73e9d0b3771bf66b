import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as ApprovalPolicy from "@mcp-effect/core/ApprovalPolicy"
import * as McpApps from "@mcp-effect/core/McpApps"
import * as ToolCallLog from "@mcp-effect/core/ToolCallLog"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as AppHost from "../AppHost.js"
import * as ServerRegistry from "../ServerRegistry.js"
import * as ToolPins from "../ToolPins.js"
import * as Errors from "./errors.js"
import { sha256Hex } from "./sha256.js"

const Pin = Schema.Struct({ digest: Schema.String, pinnedAt: Schema.Number })

/** Everything of a UI that decides what it can do, in one canonical text. */
const digestOf = (ui: McpApps.UiResource) =>
  sha256Hex(JSON.stringify([ui.html, ui.csp, [...ui.permissions].sort(), ui.domain ?? null]))

const keyOf = (app: AppHost.App) => JSON.stringify([app.server, app.uri])

/** @internal */
export const make = (
  options: AppHost.Options = {}
): Effect.Effect<AppHost.Service, never, ServerRegistry.ServerRegistry | Scope.Scope> =>
  Effect.gen(function*() {
    const registry = yield* ServerRegistry.ServerRegistry
    const policy = yield* Effect.serviceOption(ApprovalPolicy.ApprovalPolicy)
    const mode: ToolPins.Mode = options.pinning ??
      (Option.isSome(policy) && policy.value.options.mode !== "auto" ? "quarantine" : "warn")
    const kv = yield* Effect.serviceOption(KeyValueStore.KeyValueStore)
    const store = Option.isSome(kv)
      ? kv.value
      : yield* Effect.provide(KeyValueStore.KeyValueStore, KeyValueStore.layerMemory)
    const pins = store.forSchema(Pin)
    const prefix = options.pinPrefix ?? ToolPins.defaultPrefix
    // by hashes: a URI is the server's text, kept out of key names and their length limits
    const pinKey = (app: AppHost.App) => `${prefix}${encodeURIComponent(app.server)}/ui/${sha256Hex(app.uri)}`
    const events = yield* PubSub.unbounded<AppHost.Event>()
    yield* Effect.addFinalizer(() => PubSub.shutdown(events))
    /** Apps whose UI changed and is not approved yet: their calls are refused. */
    const quarantined = new Map<string, AppHost.UiChanged>()

    const warn = (what: string) => (error: { readonly message: string }) =>
      Effect.logWarning(`mcp: app host: could not ${what}`, error.message)

    const pin = (app: AppHost.App, digest: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (pinnedAt) => pins.set(pinKey(app), { digest, pinnedAt })).pipe(
        Effect.catchAll(warn("pin a UI"))
      )

    const load = (app: AppHost.App) =>
      Effect.gen(function*() {
        const client = yield* registry.client(app.server)
        const resource = yield* McpApps.read(client, app.uri)
        const digest = digestOf(resource)
        if (mode === "off") return { app, resource, digest }
        const pinned = yield* pins.get(pinKey(app)).pipe(
          Effect.catchAll((error) => Effect.as(warn("read a pinned UI")(error), Option.none()))
        )
        if (Option.isNone(pinned)) {
          yield* pin(app, digest)
        } else if (pinned.value.digest !== digest) {
          const changed = new Errors.UiChanged({ server: app.server, uri: app.uri, digest })
          const event: AppHost.Event = {
            _tag: "UiChanged",
            server: app.server,
            uri: app.uri,
            quarantined: mode === "quarantine"
          }
          yield* PubSub.publish(events, event)
          if (mode === "quarantine") {
            quarantined.set(keyOf(app), changed)
            return yield* changed
          }
        }
        quarantined.delete(keyOf(app))
        return { app, resource, digest }
      })

    const service: AppHost.Service = {
      load,
      approveUi: (app, digest) =>
        Effect.zipRight(
          pin(app, digest),
          Effect.sync(() => {
            if (quarantined.get(keyOf(app))?.digest === digest) quarantined.delete(keyOf(app))
          })
        ),
      tools: (app) => registry.appTools(app.server),
      callTool: (app, tool, args) =>
        Effect.suspend((): ReturnType<AppHost.Service["callTool"]> => {
          const held = quarantined.get(keyOf(app))
          if (held !== undefined) return Effect.fail(held)
          return Effect.flatMap(registry.appTools(app.server), (tools) => {
            // the app's own server only, by the tool's name there
            const found = tools.find((t) => t.tool.name === tool)
            return found === undefined
              ? Effect.fail(new ServerRegistry.UnknownTool({ name: tool }))
              : ToolCallLog.withOrigin(registry.callTool(found.name, args), { _tag: "App", uri: app.uri })
          })
        }),
      events: Stream.fromPubSub(events)
    }
    return service
  })
