import * as PlatformError from "@effect/platform/Error"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as SharedStore from "@mcp-effect/core/SharedStore"
import * as Effect from "effect/Effect"
import * as Equivalence from "effect/Equivalence"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as FsP from "node:fs/promises"
import * as Path from "node:path"

const directoryMode = 0o700
const fileMode = 0o600
/** The records' directory: no key's file name starts with `%r` (`encodeURIComponent` writes `%` as `%25`). */
const recordsDirectory = "%records"
/** Temporary files, renamed over the real one once written: no key or id is encoded to a name starting so. */
const temporary = "%tmp-"
/** A record's lock file, held while it is written: no id is encoded to a name starting so either. */
const lockPrefix = "%lock-"
/** A lock file older than this was left by a process that died while holding it. */
const staleLockMillis = 10_000
/** The key that seals stored server configs (and its temporaries): no key's file name starts with `%c` either. */
export const keyFile = "%config.key"

const systemError = (method: string, cause: unknown) =>
  new PlatformError.SystemError({
    reason: (cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT" ? "NotFound" : "Unknown",
    module: "KeyValueStore",
    method,
    description: cause instanceof Error ? cause.message : "file system error",
    cause
  })

const attempt = <A>(method: string, f: () => Promise<A>) =>
  Effect.tryPromise({ try: f, catch: (cause) => systemError(method, cause) })

const isNotFound = (error: PlatformError.PlatformError) => error._tag === "SystemError" && error.reason === "NotFound"

const orNone = <A>(effect: Effect.Effect<A, PlatformError.PlatformError>) =>
  effect.pipe(Effect.map(Option.some), Effect.catchIf(isNotFound, () => Effect.succeed(Option.none<A>())))

const ignoreNotFound = (effect: Effect.Effect<void, PlatformError.PlatformError>) =>
  Effect.catchIf(effect, isNotFound, () => Effect.void)

/** Writes the file whole or not at all: a reader sees the old content or the new one, never a part. */
const writeAtomic = (method: string, file: string, value: string | Uint8Array) =>
  attempt(method, async () => {
    const tmp = Path.join(Path.dirname(file), `${temporary}${globalThis.crypto.randomUUID()}`)
    try {
      await FsP.writeFile(tmp, value, { mode: fileMode })
      await FsP.rename(tmp, file)
    } catch (cause) {
      await FsP.rm(tmp, { force: true })
      throw cause
    }
  })

/** The directory owner-only, and every file and directory in it, whatever modes they had. */
const restrict = (directory: string) => {
  Fs.mkdirSync(directory, { recursive: true, mode: directoryMode })
  Fs.chmodSync(directory, directoryMode)
  for (const entry of Fs.readdirSync(directory, { withFileTypes: true })) {
    const path = Path.join(directory, entry.name)
    if (entry.isDirectory()) restrict(path)
    else if (entry.isFile()) Fs.chmodSync(path, fileMode)
  }
}

/** Record ids as file names: percent-encoded, and a leading dot too (no `.`, `..` or hidden files). */
const encodeId = (id: string) => encodeURIComponent(id).replace(/^\./, "%2E")

const byId = (a: readonly [string, string], b: readonly [string, string]) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0

const keyValueStore = (directory: string): KeyValueStore.KeyValueStore => {
  const withKey = <A>(
    method: string,
    key: string,
    f: (file: string) => Effect.Effect<A, PlatformError.PlatformError>
  ) =>
    key.length === 0 || key === "." || key === ".."
      ? Effect.fail(
        new PlatformError.BadArgument({
          module: "KeyValueStore",
          method,
          description: "Key must not be empty, . or .."
        })
      )
      : f(Path.join(directory, encodeURIComponent(key)))
  const keyFiles = attempt("size", () => FsP.readdir(directory)).pipe(
    Effect.map((names) =>
      names.filter((name) => name !== recordsDirectory && !name.startsWith(temporary) && !name.startsWith(keyFile))
    )
  )
  return KeyValueStore.make({
    get: (key) => withKey("get", key, (file) => orNone(attempt("get", () => FsP.readFile(file, "utf8")))),
    getUint8Array: (key) =>
      withKey(
        "getUint8Array",
        key,
        (file) =>
          orNone(attempt("getUint8Array", () =>
            FsP.readFile(file).then((b) =>
              new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
            )))
      ),
    set: (key, value) => withKey("set", key, (file) => writeAtomic("set", file, value)),
    remove: (key) => withKey("remove", key, (file) => ignoreNotFound(attempt("remove", () => FsP.unlink(file)))),
    has: (key) =>
      withKey("has", key, (file) => Effect.map(orNone(attempt("has", () => FsP.stat(file))), Option.isSome)),
    // the keys only: the shared records are collections of their own
    clear: Effect.flatMap(
      keyFiles,
      (names) =>
        Effect.forEach(
          names,
          (name) => ignoreNotFound(attempt("clear", () => FsP.unlink(Path.join(directory, name)))),
          {
            discard: true
          }
        )
    ),
    size: Effect.map(keyFiles, (names) => names.length)
  })
}

/**
 * Runs `write` holding the record's lock file (created exclusively, removed
 * after), so that a compare-and-set is one step among the writes of every
 * process on the directory. A lock left by a dead process is taken over once
 * it is older than {@link staleLockMillis}.
 */
const withLock = (lockFile: string) => <A>(write: Effect.Effect<A, PlatformError.PlatformError>) => {
  const take: Effect.Effect<void, PlatformError.PlatformError> = attempt("lock", async () => {
    try {
      await (await FsP.open(lockFile, "wx", fileMode)).close()
      return true
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== "EEXIST") throw cause
      const stat = await FsP.stat(lockFile).catch(() => undefined)
      if (stat !== undefined && Date.now() - stat.mtimeMs > staleLockMillis) await FsP.rm(lockFile, { force: true })
      return false
    }
  }).pipe(Effect.flatMap((taken) => taken ? Effect.void : Effect.zipRight(Effect.sleep(5), take)))
  return Effect.acquireUseRelease(
    take,
    () => write,
    () => Effect.promise(() => FsP.rm(lockFile, { force: true }))
  )
}

const sharedStore = (directory: string): SharedStore.Service => ({
  shared: true,
  collection: (name) => {
    const folder = Path.join(directory, recordsDirectory, encodeURIComponent(name))
    const ensure = attempt("collection", () => FsP.mkdir(folder, { recursive: true, mode: directoryMode }))
    const fileOf = (id: string) => Path.join(folder, encodeId(id))
    const locked = (id: string) => withLock(Path.join(folder, `${lockPrefix}${encodeId(id)}`))
    const idOf = (file: string) => {
      try {
        return file.startsWith(temporary) || file.startsWith(lockPrefix) ? undefined : decodeURIComponent(file)
      } catch {
        return undefined
      }
    }
    return {
      get: (id) => orNone(attempt("get", () => FsP.readFile(fileOf(id), "utf8"))),
      put: (id, value) => Effect.zipRight(ensure, locked(id)(writeAtomic("put", fileOf(id), value))),
      compareAndSet: (id, expected, value) =>
        Effect.zipRight(
          ensure,
          locked(id)(
            Effect.flatMap(orNone(attempt("compareAndSet", () => FsP.readFile(fileOf(id), "utf8"))), (current) =>
              Option.getEquivalence(Equivalence.string)(current, expected) ?
                Effect.as(writeAtomic("compareAndSet", fileOf(id), value), true) :
                Effect.succeed(false))
          )
        ),
      // a collection never written has no directory to lock in: nothing to remove
      remove: (id) => ignoreNotFound(locked(id)(attempt("remove", () => FsP.unlink(fileOf(id))))),
      list: orNone(attempt("list", () => FsP.readdir(folder))).pipe(
        Effect.map(Option.getOrElse((): ReadonlyArray<string> => [])),
        Effect.flatMap((files) =>
          Effect.forEach(files, (file) => {
            const id = idOf(file)
            // a record removed while listed is not listed
            return id === undefined ? Effect.succeed(Option.none()) : orNone(
              Effect.map(attempt("list", () => FsP.readFile(Path.join(folder, file), "utf8")), (value) =>
                [id, value] as const)
            )
          }, { concurrency: 16 })
        ),
        Effect.map((found) => found.flatMap((entry) => Option.isSome(entry) ? [entry.value] : []).sort(byId))
      ),
      subscribe: Effect.gen(function*() {
        yield* ensure
        const queue = yield* Effect.acquireRelease(Queue.unbounded<string>(), Queue.shutdown)
        yield* Effect.acquireRelease(
          Effect.try({
            try: () => {
              // inotify (Linux), FSEvents (macOS), ReadDirectoryChangesW (Windows): events within milliseconds
              const watcher = Fs.watch(folder, { persistent: false }, (_event, file) => {
                const id = file === null ? undefined : idOf(String(file))
                if (id !== undefined) Queue.unsafeOffer(queue, id)
              })
              // a watcher whose directory is removed reports nothing more; unhandled, the event would crash the process
              watcher.on("error", () => {})
              return watcher
            },
            catch: (cause) => systemError("subscribe", cause)
          }),
          (watcher) => Effect.sync(() => watcher.close())
        )
        return Stream.fromQueue(queue)
      }) satisfies Effect.Effect<Stream.Stream<string>, PlatformError.PlatformError, Scope.Scope>
    }
  }
})

/** @internal */
export const make = (directory: string): Effect.Effect<
  { readonly kv: KeyValueStore.KeyValueStore; readonly shared: SharedStore.Service },
  PlatformError.PlatformError
> =>
  Effect.try({
    try: () => {
      restrict(directory)
      return { kv: keyValueStore(directory), shared: sharedStore(directory) }
    },
    catch: (cause) => systemError("make", cause)
  })
