/**
 * The client's side of `ResponseCache` (see that module for the rules):
 * the page requests of the cacheable methods, the offline check, the
 * invalidation on notifications and the fail-fast guard of tool calls.
 * A client with no cache in its context gets `none`: the plain requests.
 *
 * Storage: each partition (a server's public entries; one identity's
 * private entries of a server) is a set of entry keys in the
 * `KeyValueStore` plus one index record listing them (method, hashed URI,
 * stored-at) in `Settings.indexes`, which bounds the partition and finds the
 * entries a notification invalidates. The index is changed by
 * compare-and-set, read again while another writer changed it in between:
 * writers at once (fibers, or processes on a shared backend) lose no line.
 * The cache is best effort: a store that fails is a miss, never the
 * caller's error.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import type * as ClientSession from "../../ClientSession.js"
import * as McpError from "../../McpError.js"
import type * as ResponseCache from "../../ResponseCache.js"
import { decoder } from "../engine/decode.js"
import { answered } from "../era/inputRounds.js"
import { sha256Hex } from "../platform/webCrypto.js"
import { type Cacheable, currentMode, currentServed, type Hook, none, type Page, requests } from "./cacheHook.js"
import * as Results from "./results.js"

/** How many times an index change is tried again after another writer changed the index. */
const maxIndexAttempts = 16

/** The params as a key: the same params give the same text, whatever their order. */
const canonical = (params: Record<string, unknown> | undefined): string =>
  params === undefined ?
    "{}" :
    JSON.stringify(Object.keys(params).sort().map((key) => [key, params[key]]))

interface Entry {
  readonly method: string
  readonly storedAt: number
  readonly ttlMs: number
  readonly scope: ResponseCache.Scope
  readonly value: unknown
}

interface IndexLine {
  /** The entry's key (its last segment). */
  readonly k: string
  readonly m: string
  /** The hashed URI of a `resources/read` entry. */
  readonly u?: string | undefined
  readonly at: number
}

const parseEntry = (text: string): Entry | undefined => {
  try {
    const u: unknown = JSON.parse(text)
    if (typeof u !== "object" || u === null) return undefined
    const e = u as Record<string, unknown>
    return typeof e.method === "string" && typeof e.storedAt === "number" && typeof e.ttlMs === "number" &&
        (e.scope === "public" || e.scope === "private") && "value" in e ?
      { method: e.method, storedAt: e.storedAt, ttlMs: e.ttlMs, scope: e.scope, value: e.value } :
      undefined
  } catch {
    return undefined
  }
}

const parseIndex = (text: string): Array<IndexLine> => {
  try {
    const u: unknown = JSON.parse(text)
    return Array.isArray(u) ?
      u.filter((line): line is IndexLine =>
        typeof line === "object" && line !== null && typeof line.k === "string" && typeof line.m === "string" &&
        typeof line.at === "number"
      ) :
      []
  } catch {
    return []
  }
}

const checks: {
  readonly [M in Cacheable]: (u: unknown) => Effect.Effect<Results.Result<M>, McpError.DecodeError>
} = {
  "tools/list": decoder(Results.results["tools/list"]),
  "prompts/list": decoder(Results.results["prompts/list"]),
  "resources/list": decoder(Results.results["resources/list"]),
  "resources/templates/list": decoder(Results.results["resources/templates/list"]),
  "resources/read": decoder(Results.results["resources/read"])
}

/** The hints of a result: the server's for the modern era, the app's opt-in for the legacy one. */
const hintsOf = (
  raw: unknown,
  legacy: Option.Option<{ readonly ttlMs: number; readonly scope: ResponseCache.Scope }>
): { readonly ttlMs: number; readonly scope: ResponseCache.Scope } | undefined => {
  if (typeof raw !== "object" || raw === null) return undefined
  const result = raw as { readonly resultType?: unknown; readonly ttlMs?: unknown; readonly cacheScope?: unknown }
  if (result.resultType === undefined) return Option.getOrUndefined(legacy)
  if (result.resultType !== "complete") return undefined
  const ttlMs = typeof result.ttlMs === "number" && Number.isFinite(result.ttlMs) && result.ttlMs > 0 ?
    result.ttlMs :
    0
  // an absent or unknown scope is private: "public" is the one guess that could leak a private result
  return { ttlMs, scope: result.cacheScope === "public" ? "public" : "private" }
}

/** An error that means the server could not be reached (rather than an answer). */
const isUnreachable = (error: McpError.McpClientError): boolean =>
  error._tag === "TransportError" || error._tag === "RequestTimeout" || error._tag === "ServerUnavailable"

type State = ClientSession.ConnectionState

const isDown = (state: State): boolean =>
  state._tag === "Reconnecting" || state._tag === "Closed" || (state._tag === "Connecting" && state.generation > 1)

const reasonOf = (state: State): string =>
  state._tag === "Reconnecting" ?
    `reconnecting, attempt ${state.attempt}` :
    state._tag === "Closed" ?
    "the session is closed" :
    "connecting"

/** After a request found the server unreachable, tool calls fail fast for this long; the next one probes. */
const probeMillis = 5_000

const listsOf: Readonly<Record<string, ReadonlyArray<Cacheable>>> = {
  "notifications/tools/list_changed": ["tools/list"],
  "notifications/prompts/list_changed": ["prompts/list"],
  "notifications/resources/list_changed": ["resources/list", "resources/templates/list"]
}

/**
 * The hook of a client of `server` with `cache` in its context.
 *
 * @internal
 */
export const make = (cache: ResponseCache.Settings, server: string): Effect.Effect<Hook> =>
  // without WebCrypto (a page on an insecure origin) nothing can be hashed, so nothing is cached
  globalThis.crypto?.subtle === undefined ? Effect.succeed(none) : Effect.gen(function*() {
    const startedAt = yield* Clock.currentTimeMillis
    let lastUp = startedAt
    let lastInitialized: ClientSession.Initialized | undefined
    // the watcher's copy of the state, for `lastUp`; decisions read the session's own (the copy lags)
    let seen: State = { _tag: "Connecting", generation: 1 }
    let current: ClientSession.Service | undefined
    // a transport without a connection to lose (stateless HTTP) stays Ready: a request that could not reach
    // the server says it is down, until one reaches it again
    let unreachable: { readonly since: number; lastTried: number; readonly reason: string } | undefined
    const markUnreachable = (error: McpError.McpClientError) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          if (unreachable === undefined) unreachable = { since: now, lastTried: now, reason: error.message }
          else unreachable.lastTried = now
        }))
    const stateNow: Effect.Effect<State> = Effect.suspend(() =>
      current === undefined ? Effect.succeed(seen) : current.state.get
    )
    const store = cache.store

    const serverHash = yield* sha256Hex(`mcp-cache/server\0${server}`)
    const publicPartition = `${cache.prefix}/${serverHash}/public`
    const privatePartition = yield* Option.match(cache.identity, {
      onNone: () => Effect.succeed(undefined),
      onSome: (identity) =>
        Effect.map(
          sha256Hex(`mcp-cache/identity\0${server}\0${Redacted.value(identity)}`),
          (hash) => `${cache.prefix}/${serverHash}/private/${hash}`
        )
    })
    const partitions = privatePartition === undefined ? [publicPartition] : [publicPartition, privatePartition]

    // a store that fails is a miss (logged without the key: it names no secret, but says nothing useful either)
    const quietly = <A>(effect: Effect.Effect<A, unknown>, fallback: A): Effect.Effect<A> =>
      Effect.catchAllCause(
        effect,
        (cause) => Effect.as(Effect.logDebug("mcp: response cache store failed", cause), fallback)
      )

    // the index record of a partition: its path without the prefix (the collection's name has it)
    const indexId = (partition: string) => partition.slice(cache.prefix.length + 1)

    /**
     * Changes a partition's index by compare-and-set, reading it again as
     * long as another writer changed it in between. `change` gives the new
     * lines and the lines it took out (whose entries are then removed), or
     * `undefined` to leave the index as it is.
     */
    const changeIndex = (
      partition: string,
      change: (
        lines: Array<IndexLine>
      ) => { readonly next: ReadonlyArray<IndexLine>; readonly out: ReadonlyArray<IndexLine> } | undefined
    ) => {
      const id = indexId(partition)
      const attempt = (left: number): Effect.Effect<void, unknown> =>
        Effect.flatMap(cache.indexes.get(id), (text) => {
          const changed = change(Option.match(text, { onNone: () => [], onSome: parseIndex }))
          if (changed === undefined) return Effect.void
          return Effect.flatMap(cache.indexes.compareAndSet(id, text, JSON.stringify(changed.next)), (written) =>
            written ?
              Effect.forEach(changed.out, (line) => store.remove(`${partition}/${line.k}`), { discard: true }) :
              left > 1 ?
              attempt(left - 1) :
              Effect.logDebug("mcp: response cache index kept changing; gave up"))
        })
      return attempt(maxIndexAttempts)
    }

    const lookup = (key: string, method: Cacheable) =>
      quietly(
        Effect.forEach(
          partitions,
          (partition) =>
            Effect.map(store.get(`${partition}/${key}`), (text) => Option.flatMapNullable(text, parseEntry)),
          {
            concurrency: "unbounded"
          }
        ).pipe(
          Effect.map((found) => {
            let newest: Entry | undefined
            for (const entry of found) {
              if (Option.isSome(entry) && entry.value.method === method) {
                if (newest === undefined || entry.value.storedAt > newest.storedAt) newest = entry.value
              }
            }
            return newest
          })
        ),
        undefined
      )

    const write = (
      key: string,
      method: Cacheable,
      uriHash: string | undefined,
      hints: { readonly ttlMs: number; readonly scope: ResponseCache.Scope },
      value: unknown
    ) =>
      Effect.gen(function*() {
        const partition = hints.scope === "public" ? publicPartition : privatePartition
        // no identity: a private result is not written where another identity could read it
        if (partition === undefined) return
        const storedAt = yield* Clock.currentTimeMillis
        const entry: Entry = { method, storedAt, ttlMs: hints.ttlMs, scope: hints.scope, value }
        const text = JSON.stringify(entry)
        if (text.length > cache.maxEntryBytes) return
        const line: IndexLine = uriHash === undefined ?
          { k: key, m: method, at: storedAt } :
          { k: key, m: method, u: uriHash, at: storedAt }
        yield* store.set(`${partition}/${key}`, text)
        yield* changeIndex(partition, (lines) => {
          const next = lines.filter((l) => l.k !== key)
          next.push(line)
          next.sort((a, b) => a.at - b.at)
          // over the bound, the oldest go (the line just added is the newest)
          const out = next.splice(0, Math.max(0, next.length - cache.maxEntries))
          return { next, out }
        })
      }).pipe((effect) => quietly(effect, undefined))

    const removeWhere = (matches: (line: IndexLine) => boolean) =>
      quietly(
        Effect.forEach(partitions, (partition) =>
          changeIndex(partition, (lines) => {
            const out = lines.filter(matches)
            return out.length === 0 ? undefined : { next: lines.filter((line) => !matches(line)), out }
          }), { discard: true }),
        undefined
      )

    const record = (entry: Entry, stale: boolean, offline: boolean) =>
      Effect.flatMap(FiberRef.get(currentServed), (served) =>
        Option.isNone(served) ? Effect.void : Ref.update(served.value, (s) => ({
          fromCache: true,
          stale: s.stale || stale,
          offline: s.offline || offline,
          storedAt: s.storedAt === undefined ? entry.storedAt : Math.min(s.storedAt, entry.storedAt)
        })))

    const serve = <M extends Cacheable>(method: M, entry: Entry, now: number, offline: boolean) =>
      Effect.flatMap(
        Effect.option(checks[method](entry.value)),
        (value): Effect.Effect<Option.Option<Results.Result<M>>> =>
          Option.isNone(value) ?
            Effect.succeed(Option.none()) :
            Effect.as(record(entry, now - entry.storedAt >= entry.ttlMs, offline), Option.some(value.value))
      )

    const serveOffline = <M extends Cacheable>(method: M, key: string) =>
      Effect.gen(function*() {
        const entry = yield* lookup(key, method)
        const now = yield* Clock.currentTimeMillis
        if (entry === undefined || now - entry.storedAt > cache.maxStaleMillis) {
          return Option.none()
        }
        return yield* serve(method, entry, now, true)
      })

    const page: Page = <M extends Cacheable>(
      session: ClientSession.Service,
      method: M,
      params?: Record<string, unknown>
    ) =>
      Effect.gen(function*() {
        const mode = yield* FiberRef.get(currentMode)
        const fetch = requests[method](session, params)
        if (mode === "bypass") {
          return yield* fetch
        }
        const key = yield* sha256Hex(`${method}\0${canonical(params)}`)
        if (isDown(yield* stateNow)) {
          const offline = yield* serveOffline(method, key)
          if (Option.isSome(offline)) {
            return offline.value
          }
        } else if (mode === "use") {
          const entry = yield* lookup(key, method)
          const now = yield* Clock.currentTimeMillis
          if (entry !== undefined && now - entry.storedAt < entry.ttlMs) {
            const fresh = yield* serve(method, entry, now, false)
            if (Option.isSome(fresh)) {
              return fresh.value
            }
          }
        }
        const result = yield* Effect.catchIf(
          Effect.tap(fetch, () =>
            Effect.sync(() => unreachable = undefined)),
          isUnreachable,
          (error) =>
            Effect.flatMap(
              // a timeout serves the entry too, but says nothing of tool calls: only a failed transport marks it down
              Effect.zipRight(
                error._tag === "RequestTimeout" ? Effect.void : markUnreachable(error),
                serveOffline(method, key)
              ),
              Option.match({
                onNone: () => Effect.fail(error),
                onSome: Effect.succeed
              })
            )
        )
        const hints = answered.has(result) ? undefined : hintsOf(result, cache.legacy)
        if (hints !== undefined) {
          const uri = method === "resources/read" && typeof params?.uri === "string" ? params.uri : undefined
          const uriHash = uri === undefined ? undefined : yield* sha256Hex(`${uri}`)
          yield* write(key, method, uriHash, hints, result)
        }
        return result
      })

    const unavailable = (method: string, state: State) =>
      Effect.map(Clock.currentTimeMillis, (now) =>
        new McpError.ServerUnavailable({
          server,
          method,
          // the watcher may not have seen the server go yet: then it went just now
          since: seen._tag === "Ready" ? now : lastUp,
          reason: reasonOf(state)
        }))

    const hook: Hook = {
      page,
      // decided when run: a client builds some of its members once and keeps them
      initialized: (session) =>
        Effect.flatMap(stateNow, (state) =>
          isDown(state) && lastInitialized !== undefined ? Effect.succeed(lastInitialized) : session.initialized),
      invalidate: (notification) => {
        const lists = listsOf[notification.method]
        if (lists !== undefined) {
          return removeWhere((line) =>
            lists.includes(line.m as Cacheable)
          )
        }
        if (notification.method !== "notifications/resources/updated") {
          return undefined
        }
        const uri = notification.params?.uri
        if (typeof uri !== "string") {
          return undefined
        }
        return Effect.flatMap(sha256Hex(uri), (hash) =>
          removeWhere((line) =>
            line.m === "resources/read" && line.u === hash
          ))
      },
      guard: (method, effect) =>
        cache.failFast ?
          Effect.flatMap(Effect.zip(stateNow, Clock.currentTimeMillis), ([state, now]) => {
            if (isDown(state)) {
              return Effect.flatMap(unavailable(method, state), Effect.fail)
            }
            const lost = unreachable
            if (lost !== undefined && now - lost.lastTried < probeMillis) {
              return Effect.fail(
                new McpError.ServerUnavailable({ server, method, since: lost.since, reason: lost.reason })
              )
            }
            // this call is the probe: it tells whether the server is back
            return effect.pipe(
              Effect.tap(() =>
                Effect.sync(() => unreachable = undefined)
              ),
              Effect.tapError((error) => error._tag === "TransportError" ? markUnreachable(error) : Effect.void)
            )
          }) :
          effect,
      watch: (session) =>
        Effect.sync(() => current = session).pipe(
          Effect.zipRight(session.state.changes.pipe(
            Stream.runForEach((next) =>
              Effect.map(Clock.currentTimeMillis, (now) => {
                // "since" is when it was last seen up: the moment it left Ready
                if (seen._tag === "Ready" && next._tag !== "Ready") lastUp = now
                if (next._tag === "Ready") lastInitialized = next.initialized
                seen = next
              })
            ),
            Effect.forkScoped
          )),
          Effect.asVoid
        )
    }
    return hook
  })
