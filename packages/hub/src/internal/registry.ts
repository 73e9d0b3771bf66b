import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as ApprovalRequest from "@mcp-effect/core/ApprovalRequest"
import type * as ClientSession from "@mcp-effect/core/ClientSession"
import * as DurableTasks from "@mcp-effect/core/DurableTasks"
import * as McpApps from "@mcp-effect/core/McpApps"
import * as McpClient from "@mcp-effect/core/McpClient"
import * as McpError from "@mcp-effect/core/McpError"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import * as ResponseCache from "@mcp-effect/core/ResponseCache"
import * as SharedStore from "@mcp-effect/core/SharedStore"
import * as ToolCallLog from "@mcp-effect/core/ToolCallLog"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Subscribable from "effect/Subscribable"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as ServerConfig from "../ServerConfig.js"
import type * as ServerRegistry from "../ServerRegistry.js"
import type * as ToolPins from "../ToolPins.js"
import type * as ToolSearch from "../ToolSearch.js"
import * as TransportFactory from "../TransportFactory.js"
import * as Errors from "./errors.js"
import * as Guard from "./guard.js"
import * as Ready from "./ready.js"
import * as SearchRanking from "./search/embeddings.js"
import { Embeddings } from "./search/embeddingsTag.js"
import * as SearchIndex from "./search/index.js"
import * as StoredServers from "./storedServers.js"

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
  /** The tools were listed (or could not be) since the last start: see `ready.ts`. */
  listed: boolean
  /** The tools the client left out of the last listing (they did not decode). */
  dropped: ReadonlyArray<ServerRegistry.ToolWarning>
}

const statusOf = (name: string, config: ServerConfig.ServerConfig | undefined): ServerRegistry.ServerStatus => ({
  _tag: config === undefined ? "Failed" : config.disabled ? "Disabled" : "Connecting",
  name,
  transport: config === undefined ? undefined : ServerConfig.transportKind(config),
  trusted: config?.trusted ?? false,
  toolCount: 0,
  toolsStale: false,
  sessionId: undefined,
  protocolVersion: undefined,
  serverInfo: undefined,
  lastError: undefined,
  warnings: []
})

/** What the status says of a tool the server listed and the client left out. */
const droppedWarning = (tool: McpClient.DroppedTool): ServerRegistry.ToolWarning => ({
  _tag: "Undecodable",
  tool: tool.name ?? "",
  message: `tool ${tool.name === undefined ? "without a name" : JSON.stringify(tool.name)} left out: ${tool.message}`
})

/** The longest server `instructions` kept in a status (and indexed). */
const maxInstructions = 2048

const needsAuth = (error: McpError.McpClientError | undefined) =>
  error !== undefined && (error._tag === "Unauthorized" || error._tag === "InsufficientScope")

const unknownServer = (name: string) =>
  new Errors.RegistryError({ reason: "UnknownServer", server: name, message: `no server named "${name}"` })

const make_ = (
  options: ServerRegistry.Options,
  persistence: StoredServers.StoredServers | undefined
): Effect.Effect<ServerRegistry.Service, never, TransportFactory.TransportFactory | Scope.Scope> =>
  Effect.gen(function*() {
    const factory = yield* TransportFactory.TransportFactory
    const registryScope = yield* Effect.scope
    const clientInfo = options.clientInfo ?? { name: "mcp-effect-hub", version: "0.2.0" }
    const guard = yield* Guard.make(options)
    const entries = new Map<string, Entry>()
    const baseline = new Map((options.servers ?? []).map((s) => [s.name, s]))
    // a Map: server names such as `__proto__` or `constructor` are names like any other
    const overlay = new Map<string, ServerConfig.ServerConfig | null>(persistence?.overlay)
    const statuses = yield* SubscriptionRef.make<ReadonlyArray<ServerRegistry.ServerStatus>>([])
    const tools = yield* SubscriptionRef.make<ReadonlyArray<ServerRegistry.HubTool>>([])
    /** Every tool by registry name, app-only tools included (they are never in `tools`). */
    let byName = new Map<string, ServerRegistry.HubTool>()
    let quarantined: ReadonlyMap<string, ToolPins.ToolQuarantined> = new Map()
    const publishLock = yield* Effect.makeSemaphore(1)
    const changeLock = yield* Effect.makeSemaphore(1)
    const embeddings = yield* Effect.serviceOption(Embeddings)
    // durable task records for every client: the app's `DurableTasks`, else records in the hub's shared
    // storage (the file, IndexedDB and Redis stores are a `SharedStore`); the default memory storage keeps none
    const sharedStore = yield* Effect.serviceOption(SharedStore.SharedStore)
    const durableTasks = Option.orElse(
      yield* Effect.serviceOption(DurableTasks.DurableTasks),
      () => Option.map(sharedStore, DurableTasks.fromSharedStore)
    )
    const rank = Option.map(embeddings, SearchRanking.ranker)
    // built on the first search after the tools or the servers' instructions changed
    let index: ToolSearch.Index | undefined

    /** Recomputes both views from the entries, one publisher at a time, so a stale view never wins. */
    const publish = publishLock.withPermits(1)(Effect.suspend(() => {
      const all = [...entries.values()]
      const offered = all.filter((e) => e.status._tag === "Connected" || e.status._tag === "Reconnecting")
      return Effect.flatMap(
        guard.view(offered.map((e) => ({ server: e.name, tools: e.tools, checked: e.checked }))),
        (view) => {
          byName = new Map(view.tools.map((tool) => [tool.name, tool]))
          index = undefined
          quarantined = view.quarantined
          for (const e of all) {
            e.status = { ...e.status, warnings: [...e.dropped, ...(view.warnings.get(e.name) ?? [])] }
          }
          return Effect.zipRight(
            SubscriptionRef.set(statuses, all.map((e) => e.status)),
            // a tool meant for its MCP App only is never offered to a model
            SubscriptionRef.set(tools, view.tools.filter((t) => McpApps.isModelVisible(t.tool)))
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

    /** A listing of the entry's tools, checked against their pins, with the tools the client left out of it. */
    const takeListing = (
      entry: Entry,
      runId: number,
      client: McpClient.Service,
      list: ReadonlyArray<McpSchema.Tool>,
      toolsStale = false
    ) =>
      Effect.flatMap(
        Effect.zip(guard.check(entry.name, list), client.droppedTools),
        ([checked, dropped]) =>
          update(entry, runId, (e) => {
            e.tools = list
            e.checked = checked
            e.dropped = dropped.map(droppedWarning)
            setStatus(e, { toolCount: list.length, toolsStale })
          })
      )

    const onState = (
      entry: Entry,
      run: number,
      state: ClientSession.ConnectionState,
      sessionId: Effect.Effect<string | undefined>
    ) =>
      Effect.flatMap(sessionId, (id) =>
        update(entry, run, (e) => {
          switch (state._tag) {
            // the tools shown are the last listing, from before the server went: stale until listed again
            case "Connecting":
              return setStatus(
                e,
                state.generation === 1 ?
                  { _tag: "Connecting" } :
                  { _tag: "Reconnecting", toolsStale: e.tools.length > 0 }
              )
            // why the connection ended (or the last attempt failed), for a status line; cleared once connected
            case "Reconnecting":
              return setStatus(e, {
                _tag: "Reconnecting",
                toolsStale: e.tools.length > 0,
                lastError: state.lastFailure ?? e.status.lastError
              })
            case "Ready":
              return setStatus(e, {
                _tag: "Connected",
                lastError: undefined,
                sessionId: id,
                protocolVersion: state.initialized.protocolVersion,
                instructions: state.initialized.instructions === undefined
                  ? undefined
                  : ApprovalRequest.neutralize(state.initialized.instructions).slice(0, maxInstructions),
                serverInfo: Guard.neutralizeInfo(state.initialized.serverInfo)
              })
            case "Closed": {
              e.tools = []
              e.checked = Guard.noChecks
              return setStatus(e, {
                _tag: needsAuth(state.error) ? "NeedsAuth" : "Failed",
                toolCount: 0,
                warnings: [],
                lastError: state.error
              })
            }
          }
        }))

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
        }).pipe(
          Effect.provide(built.context),
          (make) =>
            Option.isSome(durableTasks)
              ? Effect.provideService(make, DurableTasks.DurableTasks, durableTasks.value)
              : make,
          Scope.extend(scope)
        )
        yield* update(entry, runId, (e) => void (e.client = client))
        // the first tools/list after the start settles the server for `awaitReady`
        yield* Effect.forkIn(
          client.initialized.pipe(
            // with a ResponseCache in the context, the listing may come from it: say when it is stale or offline
            Effect.zipRight(Effect.serviceOption(ResponseCache.ResponseCache)),
            Effect.flatMap((cache) =>
              Option.isNone(cache) ?
                Effect.map(client.listTools, (value) => ({ value, stale: false, offline: false })) :
                ResponseCache.cached(client.listTools)
            ),
            Effect.flatMap((listed) => takeListing(entry, runId, client, listed.value, listed.stale || listed.offline)),
            Effect.ignore,
            Effect.zipRight(update(entry, runId, (e) => void (e.listed = true)))
          ),
          scope
        )
        yield* Effect.forkIn(
          Stream.runForEach(client.state.changes, (state) => onState(entry, runId, state, built.sessionId)),
          scope
        )
        yield* Effect.forkIn(
          Stream.runForEach(client.tools.changes, (list) => takeListing(entry, runId, client, list)),
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
        entry.listed = false
        entry.checked = Guard.noChecks
        entry.dropped = []
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
        const scope = yield* Scope.fork(serversScope, ExecutionStrategy.sequential)
        entry.scope = scope
        yield* publish
        yield* Effect.forkIn(run(entry, config, runId, scope), scope)
      })

    const entryOf = (name: string) =>
      Effect.suspend(() => {
        const entry = entries.get(name)
        return entry === undefined ? Effect.fail(unknownServer(name)) : Effect.succeed(entry)
      })

    const save = (name: string) =>
      Effect.suspend(() => persistence === undefined ? Effect.void : persistence.save(name, overlay.get(name)))

    /** Follows a server's stored change made by another process (this one's own changes are no change). */
    const follow = (name: string, change: Option.Option<ServerConfig.ServerConfig | null>) =>
      changeLock.withPermits(1)(Effect.gen(function*() {
        if (Option.isSome(change)) overlay.set(name, change.value)
        else overlay.delete(name)
        const wanted = Option.isSome(change) ? change.value ?? undefined : baseline.get(name)
        const entry = entries.get(name)
        if (wanted === undefined) {
          if (entry === undefined) return
          entries.delete(name)
          yield* stop(entry)
          return yield* publish
        }
        if (entry === undefined) {
          const added = newEntry(name, wanted)
          entries.set(name, added)
          return yield* start(added)
        }
        if (entry.config !== undefined && StoredServers.same(entry.config, wanted)) return
        entry.config = wanted
        yield* stop(entry)
        yield* start(entry)
      }))

    /** Restarts a server, with its config changed (and stored) first when `change` is given. */
    const restart = (name: string, change?: (config: ServerConfig.ServerConfig) => ServerConfig.ServerConfig) =>
      changeLock.withPermits(1)(Effect.gen(function*() {
        const entry = yield* entryOf(name)
        if (entry.config !== undefined && change !== undefined) {
          entry.config = change(entry.config)
          overlay.set(name, entry.config)
          yield* save(name)
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
    // every server's scope is a child of this one (made after the registry's own resources, so closed
    // before them), which closes them all at once: a closing registry (a CLI's Ctrl-C) waits for its
    // slowest server's shutdown, not for the sum of them
    const serversScope = yield* Scope.fork(registryScope, ExecutionStrategy.parallel)
    yield* Effect.forEach([...entries.values()], start, { discard: true })
    if (persistence !== undefined) {
      yield* Effect.forkIn(
        Stream.runForEach(persistence.changes, ([name, change]) => follow(name, change)),
        registryScope
      )
    }

    const callOn = (
      found: ServerRegistry.HubTool,
      args: Record<string, unknown> | undefined,
      callOptions: McpClient.CallToolOptions | undefined
    ): Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError> => {
      const client = entries.get(found.server)?.client
      if (client === undefined) {
        return Effect.fail(
          new McpError.TransportError({ reason: "Closed", message: `server "${found.server}" is not connected` })
        )
      }
      return client.callTool({ name: found.tool.name, arguments: args ?? {} }, callOptions)
    }

    const servers = Subscribable.make({ get: SubscriptionRef.get(statuses), changes: statuses.changes })
    const clientOf = (name: string) =>
      Effect.flatMap(
        entryOf(name),
        (entry) =>
          entry.client === undefined || entry.status._tag === "Failed" || entry.status._tag === "NeedsAuth"
            ? Effect.fail(
              new Errors.RegistryError({
                reason: "Unavailable",
                server: name,
                message: `server "${name}" is ${entry.status._tag}`
              })
            )
            : Effect.succeed(entry.client)
      )

    return {
      servers,
      tools: Subscribable.make({ get: SubscriptionRef.get(tools), changes: tools.changes }),
      callTool: (name, args, callOptions) =>
        Effect.suspend((): Effect.Effect<
          McpSchema.CallToolResult,
          McpError.McpClientError | ServerRegistry.UnknownTool | ToolPins.ToolQuarantined
        > => {
          const held = quarantined.get(name)
          if (held !== undefined) return Effect.fail(held)
          const found = byName.get(name)
          if (found === undefined) return Effect.fail(new Errors.UnknownTool({ name }))
          return Effect.flatMap(FiberRef.get(ToolCallLog.currentOrigin), (origin): Effect.Effect<
            McpSchema.CallToolResult,
            McpError.McpClientError | Errors.UnknownTool
          > => {
            // an app calls the tools its UI may call; anyone else (a model) only the tools offered in `tools`
            const allowed = origin === undefined ? McpApps.isModelVisible(found.tool) : McpApps.isAppVisible(found.tool)
            return allowed ? callOn(found, args, callOptions) : Effect.fail(new Errors.UnknownTool({ name }))
          })
        }),
      appTools: (server) =>
        Effect.sync(() => [...byName.values()].filter((t) => t.server === server && McpApps.isAppVisible(t.tool))),
      searchTools: (query, searchOptions) =>
        Effect.suspend(() => {
          if (index === undefined) {
            const instructions = new Map<string, string>()
            for (const entry of entries.values()) {
              if (entry.status.instructions !== undefined) instructions.set(entry.name, entry.status.instructions)
            }
            index = SearchIndex.make([...byName.values()], { instructions })
          }
          return Option.isSome(rank)
            ? rank.value(index, query, searchOptions)
            : Effect.succeed(index.search(query, searchOptions))
        }),
      awaitReady: (readyOptions) => Ready.awaitReady(servers, () => [...entries.values()], readyOptions),
      add: (config) =>
        changeLock.withPermits(1)(Effect.gen(function*() {
          if (entries.has(config.name)) {
            return yield* new Errors.RegistryError({
              reason: "DuplicateServer",
              server: config.name,
              message: `a server named "${config.name}" exists already`
            })
          }
          const entry = newEntry(config.name, config)
          entries.set(config.name, entry)
          overlay.set(config.name, config)
          yield* save(config.name)
          yield* start(entry)
        })),
      remove: (name) =>
        changeLock.withPermits(1)(Effect.gen(function*() {
          const entry = yield* entryOf(name)
          entries.delete(name)
          if (baseline.has(name)) overlay.set(name, null)
          else overlay.delete(name)
          yield* save(name)
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
            return yield* new Errors.RegistryError({
              reason: "UnknownTool",
              server,
              message: `server "${server}" lists no tool named "${name}"`
            })
          }
          yield* guard.approve(server, tool)
          const checked = yield* guard.check(server, entry.tools)
          yield* update(entry, run, (e) => void (e.checked = checked))
        }),
      client: clientOf,
      resumeTask: (server, taskId) =>
        Stream.unwrap(Effect.map(clientOf(server), (client) => client.resumeTask(taskId))),
      cancelTask: (server, taskId) => Effect.flatMap(clientOf(server), (client) => client.cancelTask(taskId)),
      durableTasks: (server) => Effect.flatMap(clientOf(server), (client) => client.durableTasks)
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
  status: statusOf(name, config),
  listed: false,
  dropped: []
})

/** `ServerRegistry.defaultStoreKey`: the key under which `layerStored` keeps its changes. */
export const defaultStoreKey = "mcp-effect/hub/servers"

/** @internal */
export const make = (
  options: ServerRegistry.Options
): Effect.Effect<ServerRegistry.Service, never, TransportFactory.TransportFactory | Scope.Scope> =>
  make_(options, undefined)

/** @internal */
export const makeStored = (
  options: ServerRegistry.Options & { readonly key?: string | undefined }
): Effect.Effect<
  ServerRegistry.Service,
  ServerRegistry.RegistryError,
  TransportFactory.TransportFactory | KeyValueStore.KeyValueStore | Scope.Scope
> => Effect.flatMap(StoredServers.make(options.key ?? defaultStoreKey), (stored) => make_(options, stored))
