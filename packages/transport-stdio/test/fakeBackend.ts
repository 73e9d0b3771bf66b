import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type { Backend, ExitStatus, Process, Signal } from "../src/internal/backend.js"

/** When a fake server exits: on stdin closing, on a signal, or never (it cannot even be reaped). */
export type ExitsOn = "stdin" | Signal | "never"

export interface Event {
  readonly at: number
  readonly event: "stdin closed" | Signal
}

/** Above Linux's largest pid: never a real process. */
export const fakePid = 4_194_305

/**
 * A backend whose one process only records, on the `Clock`, what the
 * transport does to it; stdout stays open and silent. `stdin` replaces its
 * stdin side (by default it takes every write and always has room).
 */
export const fakeBackend = (
  exitsOn: ExitsOn,
  events: Array<Event>,
  stdin?: Pick<Process, "write" | "hasRoom" | "writable" | "batchesWrites">
): Backend<never> =>
() =>
  Effect.gen(function*() {
    const exited = yield* Deferred.make<ExitStatus>()
    const record = (event: Event["event"]) =>
      Effect.flatMap(Clock.currentTimeMillis, (at) => Effect.sync(() => events.push({ at, event })))
    const exitIf = (cause: ExitsOn, status: ExitStatus) =>
      cause === exitsOn || (cause === "SIGKILL" && exitsOn !== "never") ?
        Effect.asVoid(Deferred.succeed(exited, status)) :
        Effect.void
    return {
      pid: fakePid,
      write: () => {},
      hasRoom: () => true,
      writable: Effect.void,
      ...stdin,
      endInput: Effect.zipRight(record("stdin closed"), exitIf("stdin", { _tag: "Code", code: 0 })),
      readStdout: () => Effect.never,
      pauseStdout: () => {},
      resumeStdout: () => {},
      readStderr: () => Effect.void,
      onExit: (onExit) =>
        Effect.asVoid(
          Effect.forkScoped(Effect.flatMap(Deferred.await(exited), (status) => Effect.sync(() => onExit(status))))
        ),
      exited: Deferred.await(exited),
      isRunning: Effect.map(Deferred.isDone(exited), (done) => !done),
      kill: (signal) =>
        record(signal).pipe(
          Effect.zipRight(exitIf(signal, { _tag: "Signal", signal })),
          Effect.zipRight(Deferred.await(exited))
        )
    }
  })
