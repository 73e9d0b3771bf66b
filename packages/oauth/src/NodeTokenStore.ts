/**
 * The token store for Node: one owner-only directory, one owner-only file per
 * record, every record encrypted with AES-256-GCM. Processes that use the
 * same directory share their tokens: each refresh is taken under a lock file
 * in the directory (renewed while held, taken over after its lease when its
 * holder died), so a rotating refresh token is spent by one process, and the
 * others read its result.
 *
 * It needs `FileSystem` and `Path` from `@effect/platform`; provide them with
 * `NodeContext.layer` from `@effect/platform-node`.
 *
 * @since 0.1.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as internal from "./internal/store/fileStore.js"
import * as TokenStore from "./TokenStore.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options extends TokenStore.StoreOptions {
  /**
   * Created with mode 0700 if missing; tightened to 0700 if others can read
   * or enter it.
   */
  readonly directory: string
  /**
   * The AES-256 key: 32 bytes, or their base64 / base64url encoding (for
   * example `openssl rand -base64 32` kept in a secret manager). When absent,
   * a random key is created in `<directory>/store.key` (mode 0600) and used
   * from then on: this protects copies of the record files (backups, a synced
   * folder, a file pasted into a bug report) but not an attacker who can read
   * the whole directory as the same user.
   */
  readonly key?: Redacted.Redacted<Uint8Array | string> | undefined
  /**
   * The refresh lock shared by processes on the directory.
   *
   * @since 0.3.0
   */
  readonly lock?: {
    /**
     * How long a lock outlives a holder that stopped renewing it (a killed
     * process); a refresh times out within half of it. Default 10 s.
     */
    readonly lease?: Duration.DurationInput | undefined
    /** How long to wait for a lock someone else holds before failing. Default 60 s. */
    readonly wait?: Duration.DurationInput | undefined
    /** Delay between attempts while waiting. Default 25 ms. */
    readonly retryEvery?: Duration.DurationInput | undefined
  } | undefined
}

/**
 * The name of the key file created in the directory when no `key` is given.
 *
 * @since 0.1.0
 * @category constants
 */
export const keyFileName: string = internal.KEY_FILE

/**
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  options: Options
) => Effect.Effect<TokenStore.Service, TokenStore.TokenStoreError, FileSystem.FileSystem | Path.Path> = internal.make

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<TokenStore.TokenStore, TokenStore.TokenStoreError, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(TokenStore.TokenStore, internal.make(options))
