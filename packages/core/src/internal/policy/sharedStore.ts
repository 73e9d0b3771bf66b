import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Equivalence from "effect/Equivalence"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as SharedStore from "../../SharedStore.js"
import * as KeyValueStore from "../platform/keyValueStore.js"

/** The public module's tag, by its key (the public module is imported as a type only). */
const tag = Context.GenericTag<SharedStore.SharedStore, SharedStore.Service>("@mcp-effect/core/SharedStore")

const Index = Schema.parseJson(Schema.Array(Schema.String))
const decodeIndex = Schema.decode(Index)
const encodeIndex = Schema.encodeSync(Index)

/** Ids in ascending code unit order, as every backend lists them.
 * @internal
 */
export const byId = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0

/** @internal */
export const make = (
  options: { readonly shared: boolean },
  collection: (name: string, changed: (id: string) => Effect.Effect<void>) => Omit<SharedStore.Collection, "subscribe">,
  subscribe?: (name: string) => SharedStore.Collection["subscribe"]
): SharedStore.Service => {
  // changes made through this service, for the subscribers of this process
  const local = Effect.runSync(PubSub.unbounded<readonly [string, string]>())
  const localChanges = (name: string): SharedStore.Collection["subscribe"] =>
    Effect.map(PubSub.subscribe(local), (queue) =>
      Stream.fromQueue(queue).pipe(
        Stream.filter(([collection]) => collection === name),
        Stream.map(([, id]) => id)
      ))
  return {
    shared: options.shared,
    collection: (name) => ({
      ...collection(name, (id) => Effect.asVoid(PubSub.publish(local, [name, id]))),
      subscribe: subscribe?.(name) ?? localChanges(name)
    })
  }
}

const cache = new WeakMap<KeyValueStore.KeyValueStore, SharedStore.Service>()

/** @internal */
export const fromKeyValueStore = (store: KeyValueStore.KeyValueStore): SharedStore.Service => {
  const cached = cache.get(store)
  if (cached !== undefined) return cached
  // one writer of the indexes at a time in this process
  const lock = Effect.unsafeMakeSemaphore(1)
  // one writer of the records at a time, so that a compare-and-set is one step among the writes
  const writes = Effect.unsafeMakeSemaphore(1)
  const service = make({ shared: false }, (name, changed) => {
    const indexKey = `${name}#index`
    const keyOf = (id: string) => `${name}/${encodeURIComponent(id)}`
    const readIndex = Effect.flatMap(
      store.get(indexKey),
      Option.match({
        onNone: () => Effect.succeed<ReadonlyArray<string>>([]),
        // an index that no longer decodes is rebuilt from the records written from now on
        onSome: (text) => Effect.orElseSucceed(decodeIndex(text), (): ReadonlyArray<string> => [])
      })
    )
    const changeIndex = (f: (ids: ReadonlyArray<string>) => ReadonlyArray<string>) =>
      lock.withPermits(1)(
        Effect.flatMap(readIndex, (ids) => {
          const next = f(ids)
          return next === ids ? Effect.void : store.set(indexKey, encodeIndex(next))
        })
      )
    const put = (id: string, value: string) =>
      store.set(keyOf(id), value).pipe(
        Effect.zipRight(changeIndex((ids) => ids.includes(id) ? ids : [...ids, id])),
        Effect.zipRight(changed(id))
      )
    return {
      get: (id) => store.get(keyOf(id)),
      put: (id, value) => writes.withPermits(1)(put(id, value)),
      compareAndSet: (id, expected, value) =>
        writes.withPermits(1)(
          Effect.flatMap(store.get(keyOf(id)), (current) =>
            Option.getEquivalence(Equivalence.string)(current, expected) ?
              Effect.as(put(id, value), true) :
              Effect.succeed(false))
        ),
      remove: (id) =>
        writes.withPermits(1)(
          store.remove(keyOf(id)).pipe(
            Effect.zipRight(changeIndex((ids) => ids.includes(id) ? ids.filter((i) => i !== id) : ids)),
            Effect.zipRight(changed(id))
          )
        ),
      list: Effect.flatMap(readIndex, (ids) =>
        Effect.map(
          Effect.forEach([...ids].sort(byId), (id) =>
            Effect.map(store.get(keyOf(id)), Option.map((v) => [id, v] as const))),
          (found) =>
            found.flatMap((entry) => Option.isSome(entry) ? [entry.value] : [])
        ))
    }
  })
  cache.set(store, service)
  return service
}

/** @internal */
export const memory = (): SharedStore.Service =>
  fromKeyValueStore(Effect.runSync(Effect.provide(KeyValueStore.KeyValueStore, KeyValueStore.layerMemory)))

/** @internal */
export const fromContext: Effect.Effect<SharedStore.Service, never, KeyValueStore.KeyValueStore> = Effect.flatMap(
  Effect.serviceOption(tag),
  Option.match({
    onSome: Effect.succeed,
    onNone: () => Effect.map(KeyValueStore.KeyValueStore, fromKeyValueStore)
  })
)
