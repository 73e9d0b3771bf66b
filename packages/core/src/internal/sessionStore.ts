import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SessionStore from "../SessionStore.js"

/** @internal */
export const make = (
  store: KeyValueStore.KeyValueStore,
  options?: { readonly prefix?: string | undefined }
): SessionStore.Service => {
  const prefix = options?.prefix ?? "mcp-effect/session/"
  // built here, not at load: this module and `SessionStore` import each other
  const json = Schema.parseJson(SessionStore.Stored)
  const encode = Schema.encode(json)
  const decode = Schema.decodeUnknown(json)
  const failed = (server: string, operation: "get" | "set" | "remove") => (cause: { readonly message: string }) =>
    new SessionStore.SessionStoreError({
      server,
      operation,
      message: `could not ${operation} the stored session of ${JSON.stringify(server)}: ${cause.message}`,
      cause
    })
  return {
    get: (server) =>
      store.get(prefix + server).pipe(
        Effect.mapError(failed(server, "get")),
        Effect.flatMap(Option.match({
          onNone: () => Effect.succeedNone,
          // the parse error names fields and values of the record: never the session id, which is redacted
          onSome: (text) => Effect.asSome(Effect.mapError(decode(text), failed(server, "get")))
        }))
      ),
    set: (server, stored) =>
      encode(stored).pipe(
        Effect.flatMap((text) => store.set(prefix + server, text)),
        Effect.mapError(failed(server, "set"))
      ),
    remove: (server) =>
      store.remove(prefix + server).pipe(
        // nothing stored is removed already (the file store reports it, the others do not)
        Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "NotFound", () => Effect.void),
        Effect.mapError(failed(server, "remove"))
      )
  }
}
