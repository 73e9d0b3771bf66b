import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as SharedStore from "@mcp-effect/core/SharedStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ConfigSealer from "../ConfigSealer.js"
import * as ServerConfig from "../ServerConfig.js"
import type * as ServerRegistry from "../ServerRegistry.js"
import * as Errors from "./errors.js"

/** Changes on top of the configured servers: a config per added or changed server, `null` per removed one. */
const Overlay = Schema.Record({ key: Schema.String, value: Schema.NullOr(ServerConfig.ServerConfig) })

/** @internal */
export type Overlay = typeof Overlay.Type

/** One server's change, as stored: its record's id is the server's name. */
const Stored = Schema.parseJson(Schema.NullOr(ServerConfig.ServerConfig))
const decode = Schema.decode(Stored)
const encode = Schema.encode(Stored)

/** Whether two configs are the same once stored. */
export const same = (a: ServerConfig.ServerConfig, b: ServerConfig.ServerConfig): boolean =>
  Schema.encodeSync(Stored)(a) === Schema.encodeSync(Stored)(b)

/**
 * The registry's changes, one record per server, so that processes sharing
 * the store each change their own servers without losing the others'.
 *
 * @internal
 */
export interface StoredServers {
  /** What was stored when the registry started, by server name (a `Map`: any name is a name). */
  readonly overlay: ReadonlyMap<string, ServerConfig.ServerConfig | null>
  /** Stores a server's change: a config, `null` (a configured server removed), `undefined` (no change any more). */
  readonly save: (
    name: string,
    change: ServerConfig.ServerConfig | null | undefined
  ) => Effect.Effect<void, ServerRegistry.RegistryError>
  /** Every server whose stored change changed from now on, in this process or another, with the change now stored. */
  readonly changes: Stream.Stream<readonly [name: string, change: Option.Option<ServerConfig.ServerConfig | null>]>
}

const storage = (message: string) => (cause: unknown) => new Errors.RegistryError({ reason: "Storage", message, cause })

/** @internal */
export const make = (
  key: string
): Effect.Effect<StoredServers, ServerRegistry.RegistryError, KeyValueStore.KeyValueStore | Scope.Scope> =>
  Effect.gen(function*() {
    const servers = (yield* SharedStore.fromContext).collection(key)
    // with a ConfigSealer where the registry is built, the secrets of each stored config are sealed
    const sealer = yield* Effect.serviceOption(ConfigSealer.ConfigSealer)
    const open = (change: ServerConfig.ServerConfig | null) =>
      change === null || Option.isNone(sealer) ? Effect.succeed(change) : sealer.value.unseal(change)
    const close = (change: ServerConfig.ServerConfig | null) =>
      change === null || Option.isNone(sealer) ? Effect.succeed(change) : sealer.value.seal(change)
    const write = (name: string, change: ServerConfig.ServerConfig | null) =>
      Effect.flatMap(
        close(change),
        (sealed) => Effect.flatMap(Effect.orDie(encode(sealed)), (text) => servers.put(name, text))
      )
    // subscribed before reading, so that no change falls between the two
    const changed = yield* Effect.mapError(servers.subscribe, storage("the stored servers cannot be watched"))
    const readChange = (name: string, text: string) =>
      Effect.mapError(Effect.flatMap(decode(text), open), storage(`the stored server "${name}" cannot be read`))
    let listed = yield* Effect.mapError(servers.list, storage("the stored servers cannot be read"))
    if (listed.length === 0) {
      // the one key of earlier versions: each of its changes becomes a record
      const kv = yield* KeyValueStore.KeyValueStore
      const old = yield* Effect.mapError(kv.forSchema(Overlay).get(key), storage("the stored servers cannot be read"))
      if (Option.isSome(old)) {
        yield* Effect.forEach(Object.entries(old.value), ([name, change]) => write(name, change), { discard: true })
          .pipe(
            Effect.zipRight(kv.remove(key)),
            Effect.mapError(storage("the stored servers cannot be moved to one record per server"))
          )
        listed = yield* Effect.mapError(servers.list, storage("the stored servers cannot be read"))
      }
    }
    const overlay = new Map<string, ServerConfig.ServerConfig | null>()
    for (const [name, text] of listed) overlay.set(name, yield* readChange(name, text))
    return {
      overlay,
      save: (name, change) =>
        (change === undefined ?
          servers.remove(name) :
          write(name, change)).pipe(
            Effect.mapError(storage("the servers cannot be stored"))
          ),
      changes: changed.pipe(
        Stream.mapEffect((name) =>
          servers.get(name).pipe(
            Effect.mapError(storage(`the stored server "${name}" cannot be read`)),
            Effect.flatMap(Option.match({
              onNone: () => Effect.succeed(Option.none()),
              onSome: (text) => Effect.map(readChange(name, text), Option.some)
            })),
            Effect.map((change) => Option.some([name, change] as const)),
            Effect.catchAll((error) =>
              Effect.as(Effect.logWarning("mcp: hub: a stored server change is ignored", error.message), Option.none())
            )
          )
        ),
        Stream.filterMap((change) => change)
      )
    } satisfies StoredServers
  })
