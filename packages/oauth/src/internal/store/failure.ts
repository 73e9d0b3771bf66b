import * as Data from "effect/Data"
import * as Schema from "effect/Schema"

/**
 * `TokenStore.TokenStoreError`, defined here so that the store's internals build it without
 * importing the public module (which imports them).
 */
export class TokenStoreError extends Schema.TaggedError<TokenStoreError>("@mcp-effect/oauth/TokenStoreError")(
  "TokenStoreError",
  {
    operation: Schema.String,
    message: Schema.String,
    cause: Schema.optional(Schema.Defect)
  }
) {}

/**
 * What backends and sealers fail with. The record store turns it into a
 * `TokenStoreError` naming the service operation. `message` never holds a
 * secret; `cause` is only set to errors that cannot quote one (I/O, crypto).
 */
export class StoreFailure extends Data.TaggedError("StoreFailure")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export const toTokenStoreError = (operation: string) => (failure: StoreFailure): TokenStoreError =>
  new TokenStoreError({
    operation,
    message: failure.message,
    ...(failure.cause === undefined ? {} : { cause: failure.cause })
  })
