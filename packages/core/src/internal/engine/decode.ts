import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import type * as Schema from "effect/Schema"
import * as McpError from "../../McpError.js"
import * as SchemaGuard from "../wire/schemaGuard.js"
import type * as SessionModel from "./sessionModel.js"

const parseOptions = { onExcessProperty: "preserve" } as const

/**
 * A decoder that keeps fields it does not know and fails with a typed
 * `DecodeError`.
 *
 * @internal
 */
export const decoder = <A, I>(schema: Schema.Schema<A, I>, method?: string) => {
  const check = checker(schema)
  return (u: unknown): Effect.Effect<A, McpError.DecodeError> => toEffect(check(u), method, false)
}

/**
 * Checks a value against a wire schema, never throwing: a value too deeply
 * nested to check (or to report on) is a failure like any other.
 *
 * The wire schemas transform nothing but absent fields with defaults, so a
 * value that already is a valid `A` is returned as it came, untouched (with
 * every field it has, known or not), after a compiled check
 * (`schemaGuard.ts`: the answer of `Schema.is`, at a fraction of its cost);
 * anything else takes the full decode and its error report.
 *
 * @internal
 */
export const checker = <A, I>(schema: Schema.Schema<A, I>) => {
  // compiled on first use: most are built at module load, and most a process never needs
  let is: ((u: unknown) => u is A) | undefined
  let decode: ((u: unknown) => Either.Either<A, ParseResult.ParseIssue>) | undefined
  return (u: unknown): Either.Either<A, string> => {
    is ??= SchemaGuard.make(schema)
    decode ??= ParseResult.decodeUnknownEither(schema, parseOptions)
    try {
      if (is(u)) return Either.right(u)
      const result = decode(u)
      return result._tag === "Right"
        ? Either.right(result.right)
        : Either.left(ParseResult.TreeFormatter.formatIssueSync(result.left))
    } catch (e) {
      return Either.left(`the value could not be checked (${e instanceof Error ? e.message : String(e)})`)
    }
  }
}

/** The check's outcome as an effect (the error's message is built only on failure: every result passes here). */
const toEffect = <A>(
  result: Either.Either<A, string>,
  method: string | undefined,
  isResult: boolean
): Effect.Effect<A, McpError.DecodeError> =>
  result._tag === "Right" ?
    Effect.succeed(result.right) :
    Effect.fail(
      new McpError.DecodeError({
        reason: "Schema",
        message: `${isResult ? `invalid ${method} result` : method ?? "message"}: ${result.left}`,
        ...(method !== undefined ? { method } : {})
      })
    )

/**
 * Sends a request and decodes its result with the method's schema; `then`
 * (a further check of the decoded result, given `key`) runs in the same
 * step, so a waiting request holds one continuation, not two, and no
 * closure of its own for the check.
 *
 * @internal
 */
export const decodeResult = <A, I>(schema: Schema.Schema<A, I>) => {
  const check = checker(schema)
  return (
    session: SessionModel.Service,
    method: string,
    params?: Record<string, unknown>,
    options?: SessionModel.RequestOptions,
    then?: (key: string, result: A) => Effect.Effect<A, McpError.McpClientError>,
    key: string = method
  ): Effect.Effect<A, McpError.McpClientError> =>
    Effect.flatMap(session.request(method, params, options), (raw) => {
      const result = check(raw)
      return result._tag === "Right" && then !== undefined ? then(key, result.right) : toEffect(result, method, true)
    })
}

// Bounds on one listing across all of its pages: a server returning fresh cursors forever (or huge pages)
// gets a `DecodeError` (`TooLarge`) instead of running the process out of memory. Each page is one message
// (16 MiB at most unless the transport says otherwise); these bound their sum.
const maxPages = 1_000
const maxItems = 100_000
/** The JSON size of the cursors and of every page after the first (the first is bounded as one message). */
const maxBytes = 32 * 1024 * 1024

/**
 * Follows `nextCursor` until the last page. A server that repeats a cursor,
 * or whose pages together pass the bounds above, gets a `DecodeError`
 * instead of an endless loop. A listing of one page costs nothing extra.
 *
 * @internal
 */
export const paginate = <R extends { readonly nextCursor?: string | undefined }, A>(
  fetch: (params: Record<string, unknown> | undefined) => Effect.Effect<R, McpError.McpClientError>,
  items: (page: R) => ReadonlyArray<A>
): Effect.Effect<ReadonlyArray<A>, McpError.McpClientError> =>
  Effect.suspend(() => {
    const all: Array<A> = []
    const seen = new Set<string>()
    let bytes = 0
    const loop = (cursor: string | undefined): Effect.Effect<ReadonlyArray<A>, McpError.McpClientError> =>
      Effect.flatMap(fetch(cursor === undefined ? undefined : { cursor }), (page) => {
        const next = page.nextCursor
        if (cursor === undefined && next === undefined) return Effect.succeed(items(page))
        for (const item of items(page)) all.push(item)
        if (cursor !== undefined) bytes += JSON.stringify(page).length
        if (next === undefined) return Effect.succeed(all)
        bytes += next.length
        const over = seen.has(next)
          ? "a cursor repeats"
          : seen.size >= maxPages
          ? `more than ${maxPages} pages`
          : all.length > maxItems
          ? `more than ${maxItems} items`
          : bytes > maxBytes
          ? `more than ${maxBytes} bytes of pages`
          : undefined
        if (over !== undefined) {
          return Effect.fail(
            new McpError.DecodeError({ reason: "TooLarge", message: `pagination does not end: ${over}` })
          )
        }
        seen.add(next)
        return loop(next)
      })
    return loop(undefined)
  })
