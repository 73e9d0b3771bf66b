import * as Data from "effect/Data"
import * as TokenStore from "../../TokenStore.js"

/**
 * What backends and sealers fail with. The record store turns it into a
 * `TokenStoreError` naming the service operation. `message` never holds a
 * secret; `cause` is only set to errors that cannot quote one (I/O, crypto).
 */
export class StoreFailure extends Data.TaggedError("StoreFailure")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export const toTokenStoreError = (operation: string) => (failure: StoreFailure): TokenStore.TokenStoreError =>
  new TokenStore.TokenStoreError({
    operation,
    message: failure.message,
    ...(failure.cause === undefined ? {} : { cause: failure.cause })
  })
