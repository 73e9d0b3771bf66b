/**
 * Response caches (SEP-2549). A server of the 2026-07-28 era marks its
 * `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`
 * and `resources/read` results with `ttlMs` (how long a result stays fresh;
 * absent means 0) and `cacheScope` (`"public"`: the same for every caller;
 * `"private"`, or absent or unknown: for this caller only). With this service
 * in its context, a client keeps those results, page by page (the cursor is
 * part of the key), in the context's `KeyValueStore`: with a Redis store
 * (`@mcp-effect/kv-redis`) every process of the app shares them.
 *
 * - Public entries are shared per server; private entries are kept per server
 *   and per identity (`Options.identity`, e.g. the user id or OAuth subject).
 *   A private entry is never served to another identity, and with no
 *   identity private results are not written at all.
 * - Key names hold no secret and no raw URI: the server name, the identity
 *   and the request params are SHA-256 hashed.
 * - A result the server produced after an `input_required` round (a retry
 *   carrying `inputResponses` / `requestState`) is never cached.
 * - Results of the legacy era carry no hints and are not cached, unless the
 *   app opts in with `Options.legacy` (a TTL and a scope of its choosing).
 * - `notifications/tools|prompts|resources/list_changed` delete the entries
 *   of that list, `notifications/resources/updated` the entries of that URI
 *   (in the shared store: every process sees it).
 * - Stale-if-error: while the server is down, lists and reads answer with
 *   the last entry (up to `Options.maxStale` old), flagged `offline`, and
 *   `callTool` fails at once with `McpError.ServerUnavailable` instead of
 *   waiting for the reconnect. (Over stateless HTTP, which stays connected,
 *   a request failing with a `TransportError` marks the server down: calls
 *   are refused for 5 s, then the next one probes.) After the reconnect, the next use revalidates:
 *   an expired entry is fetched again.
 *
 * A hostile server cannot fill the store: an entry over
 * `Options.maxEntryBytes` (default 256 KiB) is not stored, and each partition
 * (a server's public entries, or one identity's private entries) keeps at most
 * `Options.maxEntries` (default 256) entries, the oldest dropped first.
 * Each partition's index (which bounds it and finds the entries a
 * notification deletes) is a record of the context's `SharedStore` (every
 * store Layer of this project provides one beside its `KeyValueStore`; else
 * one over the `KeyValueStore`), changed by compare-and-set: processes that
 * store entries at once lose none of them from the index.
 *
 * The cache is used only by a client with a server name (`McpClient.Options.server`):
 * the name is the cache's notion of "the same server".
 *
 * @since 0.4.0
 */
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FiberRef from "effect/FiberRef"
import { dual } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as CacheHook from "./internal/client/cacheHook.js"
import * as internal from "./internal/client/responseCache.js"
import * as keyValueStore from "./internal/platform/keyValueStore.js"
import * as SharedStore from "./SharedStore.js"

/**
 * How one call uses the cache: `"use"` serves a fresh entry if there is one
 * and fetches otherwise; `"refresh"` always fetches and stores the result;
 * `"bypass"` fetches and neither reads nor writes the cache. In every mode a
 * list or read made while the server is down is answered from the cache
 * (flagged offline) when an entry exists, except in `"bypass"`.
 *
 * @since 0.4.0
 * @category models
 */
export type Mode = "use" | "refresh" | "bypass"

/**
 * @since 0.4.0
 * @category models
 */
export type Scope = "public" | "private"

/**
 * A value with where it came from.
 *
 * @since 0.4.0
 * @category models
 */
export interface Cached<A> {
  readonly value: A
  /** Some page came from the cache rather than from the server. */
  readonly fromCache: boolean
  /** Some page served from the cache was past its `ttlMs`. */
  readonly stale: boolean
  /** The server was down: some page came from the cache because it could not be fetched. */
  readonly offline: boolean
  /** When the oldest page served from the cache was stored (epoch milliseconds). */
  readonly storedAt: number | undefined
}

/**
 * @since 0.4.0
 * @category models
 */
export interface Options {
  /**
   * Whose private entries this app instance reads and writes (a user id, an
   * OAuth subject): hashed into key names, never stored as it is. Without
   * one, private results are not cached.
   */
  readonly identity?: Redacted.Redacted<string> | undefined
  /** Prefix of every key name; default `"mcp-cache"`. */
  readonly prefix?: string | undefined
  /** The largest entry stored (its JSON, in UTF-16 code units); default 256 KiB. */
  readonly maxEntryBytes?: number | undefined
  /** Entries kept per partition, the oldest dropped first; default 256. */
  readonly maxEntries?: number | undefined
  /** The oldest entry served while the server is down; default 24 hours. */
  readonly maxStale?: Duration.DurationInput | undefined
  /**
   * Caching of legacy-era results (which carry no hints): off unless given.
   * `scope` defaults to `"private"`.
   */
  readonly legacy?: { readonly ttl: Duration.DurationInput; readonly scope?: Scope | undefined } | undefined
  /** `callTool` fails at once with `ServerUnavailable` while the server is down; default `true`. */
  readonly failFast?: boolean | undefined
}

/**
 * What the service was made with (`Options` with their defaults).
 *
 * @since 0.4.0
 * @category models
 */
export interface Settings {
  /** Where the entries are. */
  readonly store: KeyValueStore.KeyValueStore
  /**
   * Where each partition's index is (one record per partition, changed by
   * compare-and-set): the context's `SharedStore`, or else one over `store`.
   */
  readonly indexes: SharedStore.Collection
  readonly identity: Option.Option<Redacted.Redacted<string>>
  readonly prefix: string
  readonly maxEntryBytes: number
  readonly maxEntries: number
  readonly maxStaleMillis: number
  readonly legacy: Option.Option<{ readonly ttlMs: number; readonly scope: Scope }>
  readonly failFast: boolean
}

/**
 * The settings, and the cache a client of one server uses (`McpClient`
 * calls `forServer` once, when it is built with a server name). The
 * cache's code is reached only through this value: a client built without
 * `layer` bundles none of it.
 *
 * @since 0.4.0
 * @category models
 */
export interface Service extends Settings {
  /** @internal */
  readonly forServer: (server: string) => Effect.Effect<CacheHook.Hook>
}

/**
 * @since 0.4.0
 * @category tags
 */
export class ResponseCache extends Context.Tag("@mcp-effect/core/ResponseCache")<ResponseCache, Service>() {}

/**
 * The service over the context's `KeyValueStore`.
 *
 * @since 0.4.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<Service, never, KeyValueStore.KeyValueStore> =>
  Effect.zipWith(keyValueStore.KeyValueStore, SharedStore.fromContext, (store, shared) => {
    const prefix = options.prefix ?? "mcp-cache"
    const settings: Settings = {
      store,
      indexes: shared.collection(`${prefix}/index`),
      identity: Option.fromNullable(options.identity),
      prefix,
      maxEntryBytes: options.maxEntryBytes ?? 256 * 1024,
      maxEntries: options.maxEntries ?? 256,
      maxStaleMillis: Duration.toMillis(options.maxStale ?? Duration.hours(24)),
      legacy: options.legacy === undefined ?
        Option.none() :
        Option.some({ ttlMs: Duration.toMillis(options.legacy.ttl), scope: options.legacy.scope ?? "private" }),
      failFast: options.failFast ?? true
    }
    return { ...settings, forServer: (server) => internal.make(settings, server) }
  })

/**
 * @since 0.4.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<ResponseCache, never, KeyValueStore.KeyValueStore> =>
  Layer.effect(ResponseCache, make(options))

/**
 * The mode of the calls made in a scope (default `"use"`).
 *
 * @since 0.4.0
 * @category fiber refs
 */
export const currentMode: FiberRef.FiberRef<Mode> = CacheHook.currentMode

/**
 * What the pages served in a `cached` region were (internal bookkeeping of `cached`).
 *
 * @since 0.4.0
 * @category models
 */
export interface Served {
  readonly fromCache: boolean
  readonly stale: boolean
  readonly offline: boolean
  readonly storedAt: number | undefined
}

const nothingServed: Served = { fromCache: false, stale: false, offline: false, storedAt: undefined }

/**
 * @since 0.4.0
 * @category fiber refs
 */
export const currentServed: FiberRef.FiberRef<Option.Option<Ref.Ref<Served>>> = CacheHook.currentServed

/**
 * Runs `effect` (a list or read of a client) with the cache in `mode`.
 *
 * @since 0.4.0
 * @category combinators
 */
export const withMode: {
  (mode: Mode): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(effect: Effect.Effect<A, E, R>, mode: Mode): Effect.Effect<A, E, R>
} = /* @__PURE__ */ dual(
  2,
  <A, E, R>(effect: Effect.Effect<A, E, R>, mode: Mode): Effect.Effect<A, E, R> =>
    Effect.locally(effect, currentMode, mode)
)

/**
 * Runs `effect` (a list or read of a client, e.g. `client.listTools`) in
 * `mode` (default `"use"`) and says where its value came from. The client's
 * fetch shared between concurrent callers is not used here: the call runs on
 * its own, so what it reports is its own.
 *
 * @since 0.4.0
 * @category combinators
 */
export const cached = <A, E, R>(effect: Effect.Effect<A, E, R>, mode: Mode = "use"): Effect.Effect<Cached<A>, E, R> =>
  Effect.flatMap(Ref.make(nothingServed), (served) =>
    effect.pipe(
      Effect.locally(currentMode, mode),
      Effect.locally(currentServed, Option.some(served)),
      Effect.flatMap((value) => Effect.map(Ref.get(served), (s) => ({ value, ...s })))
    ))
