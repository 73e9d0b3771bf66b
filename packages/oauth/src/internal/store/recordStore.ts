import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as TokenStore from "../../TokenStore.js"
import { StoreFailure, toTokenStoreError } from "./failure.js"
import * as Records from "./records.js"
import type { Sealer } from "./sealer.js"

/** Where sealed records are kept: a map, a directory, IndexedDB, localStorage. */
export interface Backend {
  readonly get: (name: Records.RecordName) => Effect.Effect<Option.Option<string>, StoreFailure>
  readonly set: (name: Records.RecordName, value: string) => Effect.Effect<void, StoreFailure>
  readonly remove: (name: Records.RecordName) => Effect.Effect<void, StoreFailure>
}

/** A backend over a `Map`, for the memory store. */
export const memoryBackend = (): Backend => {
  const records = new Map<string, string>()
  return {
    get: (name) => Effect.sync(() => Option.fromNullable(records.get(name.text))),
    set: (name, value) => Effect.sync(() => void records.set(name.text, value)),
    remove: (name) => Effect.sync(() => void records.delete(name.text))
  }
}

/**
 * The `TokenStore` service over any backend: records become JSON (secrets
 * unwrapped from `Redacted` only here), are sealed, and stored by name.
 * Decoding failures carry no cause: a parse error could quote the record.
 */
export const make = (
  backend: Backend,
  sealer: Sealer,
  options: TokenStore.StoreOptions | undefined
): TokenStore.Service => {
  const pendingTtl = Duration.toMillis(options?.pendingTtl ?? "10 minutes")

  const read = <A>(kind: Records.RecordKind<A>, id: string, operation: string) => {
    const name = Records.recordName(kind.kind, id)
    return backend.get(name).pipe(
      Effect.flatMap(Option.match({ onNone: () => Effect.succeedNone, onSome: (stored) => sealer.open(stored, name) })),
      Effect.flatMap(Option.match({
        onNone: () => Effect.succeedNone,
        onSome: (text) =>
          Schema.decode(kind.schema)(text).pipe(
            Effect.mapBoth({
              onFailure: () => new StoreFailure({ message: `the stored ${kind.kind} record does not decode` }),
              onSuccess: Option.some
            })
          )
      })),
      Effect.mapError(toTokenStoreError(operation))
    )
  }

  const write = <A>(kind: Records.RecordKind<A>, id: string, value: A, operation: string) => {
    const name = Records.recordName(kind.kind, id)
    return Schema.encode(kind.schema)(value).pipe(
      Effect.mapError(() => new StoreFailure({ message: `the ${kind.kind} record does not encode` })),
      Effect.flatMap((text) => sealer.seal(text, name)),
      Effect.flatMap((sealed) => backend.set(name, sealed)),
      Effect.mapError(toTokenStoreError(operation))
    )
  }

  const remove = (kind: Records.RecordName["kind"], id: string, operation: string) =>
    Effect.mapError(backend.remove(Records.recordName(kind, id)), toTokenStoreError(operation))

  return {
    getTokens: (key) => read(Records.tokens, Records.tokensId(key), "getTokens"),
    setTokens: (key, tokens) => write(Records.tokens, Records.tokensId(key), tokens, "setTokens"),
    deleteTokens: (key) => remove("tokens", Records.tokensId(key), "deleteTokens"),
    getClient: (issuer) => read(Records.client, issuer, "getClient"),
    setClient: (issuer, client) => write(Records.client, issuer, client, "setClient"),
    deleteClient: (issuer) => remove("client", issuer, "deleteClient"),
    getPending: (state) =>
      Effect.flatMap(
        read(Records.pending, state, "getPending"),
        (found) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Option.isSome(found) && now - found.value.createdAt >= pendingTtl
              ? Effect.as(remove("pending", state, "getPending"), Option.none())
              : Effect.succeed(found))
      ),
    setPending: (pending) => write(Records.pending, pending.state, pending, "setPending"),
    deletePending: (state) => remove("pending", state, "deletePending")
  }
}
