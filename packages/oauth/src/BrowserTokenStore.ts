/**
 * The token store for browsers: IndexedDB, or localStorage where IndexedDB
 * cannot be opened. Every record is encrypted with AES-256-GCM under a
 * non-extractable WebCrypto key: script on the page can use the key while the
 * page is open, but cannot read the key out, and a copy of the stored data
 * alone is useless.
 *
 * With IndexedDB the CryptoKey itself is stored there (by structured clone),
 * so records survive reloads. With localStorage there is nowhere to keep a
 * non-extractable key, so it lives in memory: after a reload the old records
 * cannot be decrypted and read as absent (the user authorizes again).
 *
 * The tabs and workers of one origin share the database, and the refresh
 * lock (`exclusive`): a Web Lock (`navigator.locks`) per token record, so a
 * rotating refresh token is spent by one tab and the others read its result.
 *
 * Record keys are `<kind>:<SHA-256 hex of the record name>`, never the
 * server or issuer URL in plain text (a server URL can carry a key).
 *
 * Nothing is touched at import time (safe for server-side rendering): the
 * globals are read when the Layer is built. WebCrypto needs a secure context
 * (https or localhost).
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as internal from "./internal/store/browserStore.js"
import * as TokenStore from "./TokenStore.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options extends TokenStore.StoreOptions {
  /**
   * The IndexedDB database name, and the localStorage key prefix in the
   * fallback. Default: `"mcp-effect-oauth"`.
   */
  readonly name?: string | undefined
}

/**
 * The IndexedDB connection is closed when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  options?: Options
) => Effect.Effect<TokenStore.Service, TokenStore.TokenStoreError, Scope.Scope> = internal.make

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<TokenStore.TokenStore, TokenStore.TokenStoreError> =>
  Layer.scoped(TokenStore.TokenStore, internal.make(options))
