import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import { StoreFailure } from "./failure.js"
import * as Files from "./fileSystem.js"
import * as Sealer from "./sealer.js"

/** @internal */
export interface Options {
  /** How long a lock outlives a holder that stops renewing it. */
  readonly lease: Duration.Duration
  /** How long to wait for a lock someone else holds. */
  readonly wait: Duration.Duration
  /** Delay between attempts while waiting. */
  readonly retryEvery: Duration.Duration
}

/** @internal */
export type Lock = (name: string) => Effect.Effect<void, StoreFailure, Scope.Scope>

interface Holder {
  readonly owner: string
  readonly expiresAt: number
}

const parse = (text: string): Option.Option<Holder> => {
  try {
    const value = JSON.parse(text) as Partial<Holder>
    return typeof value.owner === "string" && typeof value.expiresAt === "number"
      ? Option.some({ owner: value.owner, expiresAt: value.expiresAt })
      : Option.none()
  } catch {
    return Option.none()
  }
}

class Busy {
  readonly _tag = "Busy"
}

const isAlreadyExists = (error: { readonly _tag: string; readonly reason?: string }) =>
  error._tag === "SystemError" && error.reason === "AlreadyExists"

/**
 * A lock shared by the processes of one machine through a directory: the file
 * `lock-<sha256 of the name>` names its holder and when the lease ends. It is
 * published whole (written to an owner-only temporary file, then hard-linked,
 * which fails when the lock exists), renewed by its holder every third of the
 * lease, and removed by its holder when the scope closes. A lock whose lease
 * ran out (its holder died) is taken over: under a second exclusive file, so
 * that of several waiters only one removes it, and only if it is still the
 * expired one.
 *
 * @internal
 */
export const make = (fs: FileSystem.FileSystem, path: Path.Path, directory: string, options: Options): Lock => {
  const lease = Duration.toMillis(options.lease)
  const failure = (what: string) => Files.failure(`the refresh lock: ${what} failed`)

  /** Writes the holder record where `file` is, atomically: create-only (`link`) or replacing (`rename`). */
  const publish = (file: string, holder: Holder, replace: boolean) => {
    const temporary = `${file}.${Sealer.randomId(8)}.tmp`
    return Files.writePrivateFile(fs, temporary, JSON.stringify(holder)).pipe(
      Effect.zipRight(replace ? fs.rename(temporary, file) : fs.link(temporary, file)),
      Effect.ensuring(Effect.ignore(fs.remove(temporary, { force: true })))
    )
  }

  const holderOf = (file: string) =>
    Effect.map(
      Files.readIfExists(fs, file, "the refresh lock"),
      (text) => Option.map(text, (t) => ({ text: t, holder: parse(t) }))
    )

  /** Removes an expired lock, if it is still the one found expired; one taker at a time. */
  const takeOver = (file: string, expired: string) =>
    Effect.gen(function*() {
      const guard = `${file}.takeover`
      const taken = yield* Files.writePrivateFile(fs, guard, "takeover").pipe(
        Effect.as(true),
        Effect.catchIf(isAlreadyExists, () => Effect.succeed(false)),
        Effect.mapError(failure("taking over an expired lock"))
      )
      if (!taken) {
        // a taker that died leaves its guard: it is stale after a lease
        const info = yield* Effect.option(fs.stat(guard))
        const now = yield* Clock.currentTimeMillis
        const modified = Option.flatMap(info, (i) => i.mtime)
        if (Option.isSome(modified) && now - modified.value.getTime() > lease) {
          yield* Effect.ignore(fs.remove(guard, { force: true }))
        }
        return
      }
      yield* Effect.gen(function*() {
        const current = yield* holderOf(file)
        if (Option.isSome(current) && current.value.text === expired) {
          yield* Effect.mapError(fs.remove(file, { force: true }), failure("removing an expired lock"))
        }
      }).pipe(Effect.ensuring(Effect.ignore(fs.remove(guard, { force: true }))))
    })

  return (name) =>
    Effect.gen(function*() {
      const file = path.join(directory, `lock-${yield* Sealer.sha256Hex(name)}`)
      const owner = Sealer.randomId(16)
      const holder = Effect.map(Clock.currentTimeMillis, (now): Holder => ({ owner, expiresAt: now + lease }))
      const ours = Effect.map(holderOf(file), (found) =>
        Option.exists(found, ({ holder }) => Option.exists(holder, (h) => h.owner === owner)))

      // one attempt takes the lock and registers its release, or fails Busy and registers nothing
      const attempt = Effect.acquireRelease(
        Effect.gen(function*() {
          const published = yield* publish(file, yield* holder, false).pipe(
            Effect.as(true),
            Effect.catchIf(isAlreadyExists, () =>
              Effect.succeed(false)),
            Effect.mapError(failure("taking the lock"))
          )
          if (published) return
          const found = yield* holderOf(file)
          if (Option.isSome(found)) {
            const now = yield* Clock.currentTimeMillis
            const live = Option.exists(found.value.holder, (h) => h.expiresAt > now)
            if (!live) yield* takeOver(file, found.value.text)
          }
          return yield* Effect.fail(new Busy())
        }),
        () => Effect.ignore(Effect.flatMap(ours, (mine) => mine ? fs.remove(file, { force: true }) : Effect.void))
      )
      // the holder extends its lease while it holds the lock; a killed process stops renewing
      const renew = Effect.flatMap(ours, (mine) =>
        mine
          ? Effect.flatMap(holder, (h) => Effect.mapError(publish(file, h, true), failure("renewing the lock")))
          : Effect.fail(new StoreFailure({ message: "the refresh lock was lost" })))
      const taken = new StoreFailure({
        message: `the refresh lock stayed taken for ${Duration.format(options.wait)}`
      })
      yield* attempt.pipe(
        Effect.retry({ schedule: Schedule.spaced(options.retryEvery), while: (e) => e instanceof Busy }),
        Effect.timeoutFail({ duration: options.wait, onTimeout: () => taken }),
        Effect.catchIf((e): e is Busy => e instanceof Busy, () => Effect.fail(taken))
      )
      yield* Effect.forkScoped(
        Effect.ignore(
          Effect.repeat(renew, Schedule.spaced(Duration.millis(Math.max(1, Math.floor(lease / 3))))).pipe(
            Effect.delay(Duration.millis(Math.max(1, Math.floor(lease / 3))))
          )
        )
      )
    })
}
