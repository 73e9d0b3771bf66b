import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type * as ServerRegistry from "../ServerRegistry.js"
import * as Errors from "./errors.js"

/** What `awaitReady` needs to know of a server. */
export interface Progress {
  readonly status: ServerRegistry.ServerStatus
  /** Its tools were listed (or could not be) since it was last started. */
  readonly listed: boolean
}

/** A server is settled when it is connected with its tools listed, or will not connect without help. */
export const isSettled = (server: Progress): boolean => {
  switch (server.status._tag) {
    case "Disabled":
    case "Failed":
    case "NeedsAuth":
      return true
    case "Connected":
    case "Reconnecting":
      return server.listed
    case "Connecting":
      return false
  }
}

/** The default wait: the client's first-connect budget (30 s) and some room for the first tools/list. */
export const defaultTimeout = Duration.seconds(35)

/**
 * Waits (on every change of `statuses`) until `progress` says every server
 * is settled; fails with `RegistryError` (`Timeout`, naming the servers
 * still connecting) after `timeout`.
 */
export const awaitReady = (
  statuses: ServerRegistry.Service["servers"],
  progress: () => ReadonlyArray<Progress>,
  options: { readonly timeout?: Duration.DurationInput | undefined } | undefined
): Effect.Effect<ReadonlyArray<ServerRegistry.ServerStatus>, ServerRegistry.RegistryError> => {
  const timeout = Duration.decode(options?.timeout ?? defaultTimeout)
  return Stream.concat(Stream.make(undefined), statuses.changes).pipe(
    Stream.map(() => progress()),
    Stream.filter((servers) => servers.every(isSettled)),
    Stream.runHead,
    Effect.map((head) => Option.getOrElse(head, progress).map((server) => server.status)),
    Effect.timeoutFail({
      duration: timeout,
      onTimeout: () => {
        const waiting = progress().filter((s) => !isSettled(s)).map((s) => JSON.stringify(s.status.name))
        return new Errors.RegistryError({
          reason: "Timeout",
          message: `servers not ready after ${Duration.toMillis(timeout)} ms: ${waiting.join(", ")}`
        })
      }
    })
  )
}
