import * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as ClientSession from "@mcp-effect/core/ClientSession"
import * as McpClient from "@mcp-effect/core/McpClient"
import * as McpError from "@mcp-effect/core/McpError"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Subscribable from "effect/Subscribable"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as ServerConfig from "../ServerConfig.js"
import * as ServerRegistry from "../ServerRegistry.js"
import * as TransportFactory from "../TransportFactory.js"
import type * as ToolPins from "../ToolPins.js"
import * as Guard from "./guard.js"

interface Entry {
  readonly name: string
  config: ServerConfig.ServerConfig | undefined
  /** Bumped on every start and stop, so the watchers of an older run change nothing. */
  run: number
  scope: Scope.CloseableScope | undefined
  client: McpClient.Service | undefined
  tools: ReadonlyArray<McpSchema.Tool>
  /** The tools next to their pins. */
  checked: Guard.Checked
  status: ServerRegistry.ServerStatus
}

/**
 * Changes on top of the configured servers: a config per added or changed
 * server, `null` per removed one. Stored as one JSON object by server name,
 * read and written as entries (never through an object's properties), so a
 * server named `__proto__` is kept like any other.
 */
const Overlay = Schema.transformOrFail(
  Schema.Unknown,
  Schema.Array(Schema.Tuple(Schema.String, Schema.NullOr(ServerConfig.ServerConfig))),
  {
    strict: true,
    decode: (json, _, ast) =>
      typeof json === "object" && json !== null && !Array.isArray(json)
        ? ParseResult.succeed(Object.entries(json))
        : ParseResult.fail(new ParseResult.Type(ast, json, "the stored servers must be an object")),
    encode: (entries) => ParseResult.succeed(Object.fromEntries(entries))
  }
)
type Overlay = typeof Overlay.Type

interface Persistence {
  readonly save: (overlay: Overlay) => Effect.Effect<void, ServerRegistry.RegistryError>
}

const statusOf = (name: string, config: ServerConfig.ServerConfig | undefined): ServerRegistry.ServerStatus => ({
  _tag: config === undefined ? "Failed" : config.disabled ? "Disabled" : "Connecting",
  name,
  transport: config === undefined ? undefined : ServerConfig.transportKind(config),
  trusted: config?.trusted ?? false,
  toolCount: 0,
  sessionId: undefined,
  protocolVersion: undefined,
  serverInfo: undefined,
  lastError: undefined,
  warnings: []
})

const needsAuth = (error: McpError.McpClientError | undefined) =>
  error !== undefined && (error._tag === "Unauthorized" || error._tag === "InsufficientScope")

const unknownServer = (name: string) =>
  new ServerRegistry.RegistryError({ reason: "UnknownServer", server: name, message: `no server named "${name}"` })

const make_ = (
  options: ServerRegistry.Options,
  persistence: Persistence | undefined,
  initialOverlay: Overlay
): Effect.Effect<ServerRegistry.Service, never, TransportFactory.TransportFactory | Scope.Scope> =>
  Effect.gen(function*() {
    const factory = yield* TransportFactory.TransportFactory
    const registryScope = yield* Effect.scope
    const clientInfo = options.clientInfo ?? { name: "mcp-effect-hub", version: "0.2.0" }
    const guard = yield* Guard.make(options)
    const entries = new Map<string, Entry>()
    const baseline = new Set((options.servers ?? []).map((s) => s.name))
    // a Map: server names such as `__proto__` or `constructor` are names like any other
    const overlay = new Map<string, ServerConfig.ServerConfig | null>(initialOverlay)
    const statuses = yield* SubscriptionRef.make<ReadonlyArray<ServerRegistry.ServerStatus>>([])
    const tools = yield* SubscriptionRef.make<ReadonlyArray<ServerRegistry.HubTool>>([])
    let byName = new Map<string, ServerRegistry.HubTool>()
    let quarantined: ReadonlyMap<string, ToolPins.ToolQuarantined> = new Map()
    const publishLock = yield* Effect.makeSemaphore(1)
    const changeLock = yield* Effect.makeSemaphore(1)

    /** Recomputes both views from the entries, one publisher at a time, so a stale view never wins. */
    const publish = publishLock.withPermits(1)(Effect.suspend(() => {
      const all = [...entries.values()]
      const offered = all.filter((e) => e.status._tag === "Connected" || e.status._tag === "Reconnecting")
      return Effect.flatMap(
        guard.view(offered.map((e) => ({ server: e.name, tools: e.tools, checked: e.checked }))),
        (view) => {
          byName = new Map(view.tools.map((tool) => [tool.name, tool]))
          quarantined = view.quarantined
          for (const e of all) e.status = { ...e.status, warnings: view.warnings.get(e.name) ?? [] }
          return Effect.zipRight(
            SubscriptionRef.set(statuses, all.map((e) => e.status)),
            SubscriptionRef.set(tools, view.tools)
          )
        }
      )
    }))

    /** Applies a change to an entry if it is still in the same run. */
    const update = (entry: Entry, run: number, change: (entry: Entry) => void) =>
      Effect.suspend(() => {
        if (entries.get(entry.name) !== entry || entry.run !== run) return Effect.void
        change(entry)
        return publish
      })

    const setStatus = (entry: Entry, patch: Partial<ServerRegistry.ServerStatus>) => {
      entry.status = { ...entry.status, ...patch }
    }

    const onState = (entry: Entry, run: number, state: ClientSession.ConnectionState, sessionId: Effect.Effect<string | undefined>) =>
      Effect.flatMap(sessionId, (id) =>
        update(entry, run, (e) => {
          switch (state._tag) {
            case "Connecting":
              return setStatus(e, { _tag: state.generation === 1 ? "Connecting" : "Reconnecting" })
            case "Reconnecting":
              return setStatus(e, { _tag: "Reconnecting" })
            case "Ready":
              return setStatus(e, {
                _tag: "Connected",
                sessionId: id,
                protocolVersion: state.initialized.protocolVersion,
                serverInfo: Guard.neutralizeInfo(state.initialized.serverInfo)
              })
            case "Closed": {
              e.tools = []
              e.checked = Guard.noChecks
              return setStatus(e, {
                _tag: needsAuth(state.error) ? "NeedsAuth" : "Failed",
                toolCount: 0,
                lastError: state.error
              })
            }
          }
        })
      )

    /** Builds the server's transport and client; never fails (failures become the status). */
    const run = (entry: Entry, config: ServerConfig.ServerConfig, runId: number, scope: Scope.Scope) =>
      Effect.gen(function*() {
        const resolved = yield* ServerConfig.resolve(config)
        // a url written as ${VAR}: its expanded scheme may name another kind than the config did
        yield* update(entry, runId, (e) => setStatus(e, { transport: ServerConfig.transportKind(resolved) }))
        const built = yield* Scope.extend(factory.make(resolved, { reconnect: options.reconnect }), scope)
        const client = yield* McpClient.make({
          ...options.client,
          clientInfo,
          server: config.name,
          trusted: config.trusted,
          ...(resolved.timeout === undefined ? {} : { requestTimeout: resolved.timeout })
        }).pipe(Effect.provide(built.context), Scope.extend(scope))
        yield* update(entry, runId, (e) => void (e.client = client))
        yield* Effect.forkIn(
          Stream.runForEach(client.state.changes, (state) => onState(entry, runId, state, built.sessionId)),
          scope
        )
        yield* Effect.forkIn(
          Stream.runForEach(client.tools.changes, (list) =>
            Effect.flatMap(guard.check(entry.name, list), (checked) =>
              update(entry, runId, (e) => {
                e.tools = list
                e.checked = checked
                setStatus(e, { toolCount: list.length })
              }))),
          scope
        )
      }).pipe(
        Effect.catchAll((error: ServerRegistry.ServerError) =>
          update(entry, runId, (e) => setStatus(e, { _tag: "Failed", lastError: error }))
        )
      )

    const stop = (entry: Entry) =>
      Effect.suspend(() => {
        const scope = entry.scope
        entry.run++
        entry.scope = undefined
        entry.client = undefined
        entry.tools = []
        entry.checked = Guard.noChecks
        return scope === undefined ? Effect.void : Scope.close(scope, Exit.void)
      })

    /** Starts the entry in the background: the caller never waits for the server. */
    const start = (entry: Entry) =>
      Effect.gen(function*() {
        const runId = ++entry.run
        const config = entry.config
        entry.status = { ...statusOf(entry.name, config), lastError: entry.status.lastError }
        if (config === undefined || config.disabled) return yield* publish
        entry.status = { ...entry.status, lastError: undefined }
        const scope = yield* Scope.fork(registryScope, ExecutionStrategy.sequential)
        entry.scope = scope
        yield* publish
        yield* Effect.forkIn(run(entry, config, runId, scope), scope)
      })

    const entryOf = (name: string) =>
      Effect.suspend(() => {
        const entry = entries.get(name)
        return entry === undefined ? Effect.fail(unknownServer(name)) : Effect.succeed(entry)
      })

    const save = Effect.suspend(() =>
      persistence === undefined ? Effect.void : persistence.save([...overlay])
    )

    /** Restarts a server, with its config changed (and stored) first when `change` is given. */
    const restart = (name: string, change?: (config: ServerConfig.ServerConfig) => ServerConfig.ServerConfig) =>
      changeLock.withPermits(1)(Effect.gen(function*() {
        const entry = yield* entryOf(name)
        if (entry.config !== undefined && change !== undefined) {
          entry.config = change(entry.config)
          overlay.set(name, entry.config)
          yield* save
        }
        yield* stop(entry)
        yield* start(entry)
      }))

    // the configured servers with the stored changes on top, in file order, then the added ones
    for (const config of options.servers ?? []) {
      const stored = overlay.get(config.name)
      if (stored === null) continue
      entries.set(config.name, newEntry(config.name, stored ?? config))
    }
    for (const [name, stored] of overlay) {
      if (stored !== null && !entries.has(name)) entries.set(name, newEntry(name, stored))
    }
    for (const error of options.errors ?? []) {
      if (entries.has(error.server)) continue
      const entry = newEntry(error.server, undefined)
      entry.status = { ...entry.status, lastError: error }
      entries.set(error.server, entry)
    }
    yield* Effect.forEach([...entries.values()], start, { discard: true })

    return {
      servers: Subscribable.make({ get: SubscriptionRef.get(statuses), changes: statuses.changes }),
      tools: Subscribable.make({ get: SubscriptionRef.get(tools), changes: tools.changes }),
      callTool: (name, args, callOptions) =>
        Effect.suspend((): Effect.Effect<
          McpSchema.CallToolResult,
          McpError.McpClientError | ToolPins.ToolQuarantined
        > => {
          const found = byName.get(name)
          const held = quarantined.get(name)
          if (held !== undefined) return Effect.fail(held)
          if (found === undefined) {
            return Effect.fail(
              new McpError.ProtocolError({
                code: McpError.ErrorCode.InvalidParams,
                method: "tools/call",
                message: `no tool named "${name}" in the registry`
              })
            )
          }
          const client = entries.get(found.server)?.client
          if (client === undefined) {
            return Effect.fail(
              new McpError.TransportError({ reason: "Closed", message: `server "${found.server}" is not connected` })
            )
          }
          return client.callTool({ name: found.tool.name, arguments: args ?? {} }, callOptions)
        }),
      add: (config) =>
        changeLock.withPermits(1)(Effect.gen(function*() {
          if (entries.has(config.name)) {
            return yield* new ServerRegistry.RegistryError({
              reason: "DuplicateServer",
              server: config.name,
              message: `a server named "${config.name}" exists already`
            })
          }
          const entry = newEntry(config.name, config)
          entries.set(config.name, entry)
          overlay.set(config.name, config)
          yield* save
          yield* start(entry)
        })),
      remove: (name) =>
        changeLock.withPermits(1)(Effect.gen(function*() {
          const entry = yield* entryOf(name)
          entries.delete(name)
          if (baseline.has(name)) overlay.set(name, null)
          else overlay.delete(name)
          yield* save
          yield* stop(entry)
          yield* publish
        })),
      enable: (name) => restart(name, (config) => ({ ...config, disabled: false })),
      disable: (name) => restart(name, (config) => ({ ...config, disabled: true })),
      reconnect: (name) => restart(name),
      pinEvents: guard.events,
      approveDefinition: (server, name) =>
        Effect.gen(function*() {
          const entry = yield* entryOf(server)
          const run = entry.run
          const tool = entry.tools.find((t) => t.name === name)
          if (tool === undefined) {
            return yield* new ServerRegistry.RegistryError({
              reason: "UnknownTool",
              server,
              message: `server "${server}" lists no tool named "${name}"`
            })
          }
          yield* guard.approve(server, tool)
          const checked = yield* guard.check(server, entry.tools)
          yield* update(entry, run, (e) => void (e.checked = checked))
        }),
      client: (name) =>
        Effect.flatMap(entryOf(name), (entry) =>
          entry.client === undefined || entry.status._tag === "Failed" || entry.status._tag === "NeedsAuth"
            ? Effect.fail(
              new ServerRegistry.RegistryError({
                reason: "Unavailable",
                server: name,
                message: `server "${name}" is ${entry.status._tag}`
              })
            )
            : Effect.succeed(entry.client))
    }
  })

const newEntry = (name: string, config: ServerConfig.ServerConfig | undefined): Entry => ({
  name,
  config,
  run: 0,
  scope: undefined,
  client: undefined,
  tools: [],
  checked: Guard.noChecks,
  status: statusOf(name, config)
})

/** @internal */
export const make = (
  options: ServerRegistry.Options
): Effect.Effect<ServerRegistry.Service, never, TransportFactory.TransportFactory | Scope.Scope> =>
  make_(options, undefined, [])

/** @internal */
export const makeStored = (
  options: ServerRegistry.Options & { readonly key?: string | undefined }
): Effect.Effect<
  ServerRegistry.Service,
  ServerRegistry.RegistryError,
  TransportFactory.TransportFactory | KeyValueStore.KeyValueStore | Scope.Scope
> =>
  Effect.gen(function*() {
    const key = options.key ?? ServerRegistry.defaultStoreKey
    const store = (yield* KeyValueStore.KeyValueStore).forSchema(Overlay)
    const storage = (message: string) => (cause: unknown) =>
      new ServerRegistry.RegistryError({ reason: "Storage", message, cause })
    const stored = yield* Effect.mapError(store.get(key), storage("the stored servers cannot be read"))
    return yield* make_(options, {
      save: (overlay) => Effect.mapError(store.set(key, overlay), storage("the servers cannot be stored"))
    }, Option.getOrElse(stored, () => []))
  })
