import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as NodeTokenStore from "../../NodeTokenStore.js"
import type * as TokenStore from "../../TokenStore.js"
import { toTokenStoreError } from "./failure.js"
import * as FileBackend from "./fileBackend.js"
import * as FileKey from "./fileKey.js"
import * as FileLock from "./fileLock.js"
import * as Files from "./fileSystem.js"
import * as Records from "./records.js"
import * as RecordStore from "./recordStore.js"
import * as Sealer from "./sealer.js"

export const KEY_FILE = "store.key"

export const make = (
  options: NodeTokenStore.Options
): Effect.Effect<TokenStore.Service, TokenStore.TokenStoreError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const directory = path.resolve(options.directory)
    yield* Files.ensurePrivateDirectory(fs, directory)
    const raw = options.key === undefined
      ? yield* FileKey.loadOrCreate(fs, path.join(directory, KEY_FILE))
      : yield* FileKey.fromOption(options.key)
    const { key, keyId } = yield* Sealer.importRawKey(raw)
    const store = RecordStore.make(FileBackend.make(fs, path, directory), Sealer.aesGcm(key, keyId, "fail"), options)
    const lease = Duration.decode(options.lock?.lease ?? "10 seconds")
    const lock = FileLock.make(fs, path, directory, {
      lease,
      wait: Duration.decode(options.lock?.wait ?? "60 seconds"),
      retryEvery: Duration.decode(options.lock?.retryEvery ?? "25 millis")
    })
    const service: TokenStore.Service = {
      ...store,
      // processes sharing the directory spend a rotating refresh token one at a time
      exclusive: (tokenKey) => Effect.mapError(lock(Records.tokensId(tokenKey)), toTokenStoreError("exclusive")),
      lease
    }
    return service
  }).pipe(Effect.mapError(toTokenStoreError("open")))
