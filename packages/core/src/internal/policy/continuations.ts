// Durable multi-round-trip requests (2026-07-28): the records, the errors, the caller's loop
// (`follow`, called by the input rounds when a tracker is set) and `answer` from any process.
// Every transition of a record is one `compareAndSet` on the shared store, from the exact value
// read: of two processes moving the same record, one wins and the other reads again.
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as Continuations from "../../Continuations.js"
import * as McpError from "../../McpError.js"
import * as McpSchema from "../../McpSchema.js"
import type * as SharedStore from "../../SharedStore.js"
import * as ToolCallLog from "../../ToolCallLog.js"
import { sha256Hex } from "../platform/webCrypto.js"
import { currentIdentity, currentLogId, currentTracker, type FollowInput, type Tracker } from "./continuationHooks.js"

/** @internal */
export const State = Schema.Literal("Pending", "Answered", "Completed", "Failed", "Expired")

/** @internal */
export const Continuation = Schema.Struct({
  id: Schema.String,
  /** The app's name for the server (`McpClient.Options.server`, the hub's server name). */
  server: Schema.String,
  method: Schema.String,
  /** The original params, as the caller gave them (without the era's `_meta` envelope). */
  params: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  requestState: Schema.optional(Schema.String),
  inputRequests: Schema.Record({ key: Schema.String, value: McpSchema.InputRequest }),
  /** Who may answer: the app's identity as given, or `sha256:<hex>` of a `Redacted` one. */
  identity: Schema.optional(Schema.String),
  round: Schema.Number,
  createdAt: Schema.Number,
  updatedAt: Schema.Number,
  expiresAt: Schema.Number,
  state: State,
  /** The `ToolCallLog` record of the call, updated by whichever process completes it. */
  logId: Schema.optional(Schema.String),
  result: Schema.optional(Schema.Unknown),
  error: Schema.optional(Schema.Struct({ _tag: Schema.String, message: Schema.String }))
})

type Record = typeof Continuation.Type

const Json = Schema.parseJson(Continuation)
const encode = Schema.encodeSync(Json)
const decode = Schema.decodeUnknownOption(Json)
const decodeInputRequired = Schema.decodeUnknownEither(McpSchema.InputRequiredResult)
const decodeCallToolResult = Schema.decodeUnknownOption(McpSchema.CallToolResult)

/** @internal */
export class ContinuationNotFound extends Schema.TaggedError<ContinuationNotFound>(
  "@mcp-effect/core/ContinuationNotFound"
)("ContinuationNotFound", { id: Schema.String }) {
  override get message(): string {
    return `no continuation ${this.id} (never made, or cleaned up)`
  }
}

/** @internal */
export class ContinuationAlreadyAnswered extends Schema.TaggedError<ContinuationAlreadyAnswered>(
  "@mcp-effect/core/ContinuationAlreadyAnswered"
)("ContinuationAlreadyAnswered", { id: Schema.String, state: State }) {
  override get message(): string {
    return `continuation ${this.id} was answered already (now ${this.state})`
  }
}

/** @internal */
export class ContinuationExpired extends Schema.TaggedError<ContinuationExpired>(
  "@mcp-effect/core/ContinuationExpired"
)("ContinuationExpired", { id: Schema.String }) {
  override get message(): string {
    return `continuation ${this.id} expired before it was answered`
  }
}

/** @internal */
export class ContinuationForbidden extends Schema.TaggedError<ContinuationForbidden>(
  "@mcp-effect/core/ContinuationForbidden"
)("ContinuationForbidden", { id: Schema.String }) {
  override get message(): string {
    return `continuation ${this.id} may not be answered by this identity`
  }
}

/** The identity as stored: a plain one as is, a `Redacted` one as its SHA-256 digest. @internal */
export const identityKey = (identity: Continuations.Identity): Effect.Effect<string> =>
  typeof identity === "string" ?
    Effect.succeed(identity) :
    Effect.map(sha256Hex(Redacted.value(identity)), (digest) => `sha256:${digest}`)

const size = (value: unknown) => value === undefined ? 0 : JSON.stringify(value).length

/** @internal */
export const make = (
  store: SharedStore.Service,
  options?: Continuations.Options
): Effect.Effect<Continuations.Service> =>
  Effect.gen(function*() {
    const log = yield* Effect.serviceOption(ToolCallLog.ToolCallLog)
    const collection = store.collection(options?.collection ?? "mcp-continuations")
    const ttl = options?.ttl === undefined ? 10 * 60_000 : options.ttl
    const maxRequestState = options?.maxRequestStateLength ?? 64 * 1024
    const maxInputRequests = options?.maxInputRequestsLength ?? 256 * 1024

    const read = (id: string) =>
      Effect.map(
        collection.get(id),
        Option.flatMap((raw) => Option.map(decode(raw), (record) => [raw, record] as const))
      )

    const move = (raw: string, record: Record) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const next = encode({ ...record, updatedAt: now })
        return Effect.map(
          collection.compareAndSet(record.id, Option.some(raw), next),
          (moved) => moved ? next : undefined
        )
      })

    /** Claims a pending record for one answer; its retry then has a further `ttl` to be stored. */
    const claim = (raw: string, record: Record) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (now) => move(raw, { ...record, state: "Answered", expiresAt: now + ttl })
      )

    /** The bounds on what a server may make us store; `undefined` when within them. */
    const refusal = (method: string, result: McpSchema.InputRequiredResult) => {
      const stateLength = result.requestState?.length ?? 0
      const requestsLength = size(result.inputRequests)
      return stateLength > maxRequestState || requestsLength > maxInputRequests ?
        new McpError.DecodeError({
          reason: "TooLarge",
          method,
          message: stateLength > maxRequestState ?
            `the server's requestState is ${stateLength} characters, over the ${maxRequestState} a continuation keeps` :
            `the server's input requests are ${requestsLength} characters, over the ${maxInputRequests} a continuation keeps`
        }) :
        undefined
    }

    const decodeRound = (method: string, raw: unknown) => {
      const decoded = decodeInputRequired(raw)
      if (decoded._tag === "Left") {
        return Effect.fail(
          new McpError.DecodeError({
            reason: "Schema",
            method,
            message: `invalid input_required result: ${decoded.left}`
          })
        )
      }
      const refused = refusal(method, decoded.right)
      return refused === undefined ? Effect.succeed(decoded.right) : Effect.fail(refused)
    }

    // the call log of this service's context, else of the answering fiber's (a hub provides its own)
    const updateLog = (record: Record, exit: Exit.Exit<unknown, McpError.McpClientError>) =>
      record.logId === undefined || record.method !== "tools/call" ?
        Effect.void :
        Effect.flatMap(
          Option.isSome(log) ? Effect.succeed(log) : Effect.serviceOption(ToolCallLog.ToolCallLog),
          (found) => Option.isNone(found) ? Effect.void : updateIn(found.value, record.logId!, exit)
        )

    const updateIn = (log: ToolCallLog.Service, logId: string, exit: Exit.Exit<unknown, McpError.McpClientError>) => {
      const update: ToolCallLog.Update = Exit.match(exit, {
        onSuccess: (result) =>
          Option.match(decodeCallToolResult(result), {
            onNone: () => ({ status: "Completed" }),
            onSome: (result) => ({ status: result.isError === true ? "Failed" : "Completed", result })
          }),
        onFailure: (cause) => {
          const error = Option.getOrUndefined(Cause.failureOption(cause))
          return error === undefined ?
            { status: "Failed" } :
            { status: ToolCallLog.statusOfError(error), error: { _tag: error._tag, message: error.message } }
        }
      })
      return log.update(logId, update)
    }

    /** Stores how the retry of `answered` (the record's raw value) ended; a record moved since is left alone. */
    const settleWith = (answered: string, record: Record, exit: Exit.Exit<unknown, McpError.McpClientError>) =>
      Effect.zipRight(
        move(
          answered,
          Exit.match(exit, {
            onSuccess: (result): Record => ({ ...record, state: "Completed", result }),
            onFailure: (cause): Record => {
              const error = Option.getOrUndefined(Cause.failureOption(cause))
              return {
                ...record,
                state: "Failed",
                error: error === undefined ?
                  { _tag: "Interrupted", message: "the process answering it stopped before the server answered" } :
                  { _tag: error._tag, message: error.message }
              }
            }
          })
        ),
        updateLog(record, exit)
      )

    /** Waits until the record is no longer `raw`; `onExpiry` runs at its expiry time instead if that comes first. */
    const changedFrom = <E>(raw: string, record: Record, onExpiry: Effect.Effect<void, E>) =>
      Effect.scoped(
        Effect.gen(function*() {
          const changes = yield* collection.subscribe
          const now = yield* collection.get(record.id)
          if (Option.getOrUndefined(now) !== raw) return
          yield* changes.pipe(
            Stream.filter((id) => id === record.id),
            Stream.mapEffect(() => collection.get(record.id)),
            Stream.filter((value) => Option.getOrUndefined(value) !== raw),
            Stream.take(1),
            Stream.runDrain
          )
        })
      ).pipe(
        Effect.orDie,
        Effect.raceFirst(
          Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sleep(Math.max(0, record.expiresAt - now))).pipe(
            Effect.zipRight(onExpiry)
          )
        )
      )

    const expireIfDue = (raw: string, record: Record) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        record.state === "Pending" && now >= record.expiresAt ?
          Effect.as(move(raw, { ...record, state: "Expired" }), true) :
          Effect.succeed(false))

    /**
     * The caller's loop over record `id`: answers a pending round with this
     * process's handlers (claiming the record first), and meanwhile watches
     * it: answered elsewhere, the handler is interrupted and the result
     * another process stores is this call's result.
     */
    const settle = (id: string, input: FollowInput): Effect.Effect<unknown, McpError.McpClientError> =>
      Effect.gen(function*() {
        const found = yield* Effect.orDie(read(id))
        if (Option.isNone(found)) {
          return yield* new McpError.RequestCancelled({
            method: input.method,
            reason: `its continuation ${id} was removed before the request completed`
          })
        }
        const [raw, record] = found.value
        switch (record.state) {
          case "Completed":
            return record.result
          case "Failed":
            return yield* new McpError.ProtocolError({
              code: McpError.ErrorCode.InternalError,
              method: input.method,
              message: `continuation ${id} failed: ${record.error?.message ?? "unknown error"}`
            })
          case "Expired":
            return yield* new McpError.RequestCancelled({
              method: input.method,
              reason: `its continuation ${id} expired before anyone answered`
            })
          case "Answered":
            // a retry is in flight (here or in another process): its outcome is ours
            yield* changedFrom(
              raw,
              record,
              new McpError.OutcomeUnknown({
                method: input.method,
                message: `continuation ${id} was answered, and nothing was stored before it expired`
              })
            )
            return yield* settle(id, input)
          case "Pending": {
            if (yield* Effect.orDie(expireIfDue(raw, record))) return yield* settle(id, input)
            const requests = record.inputRequests
            const local = Object.values(requests).every((request) => input.canAnswer(request.method)) ?
              Effect.map(input.answer(requests), Option.some) :
              Effect.never
            const outcome = yield* Effect.raceFirst(
              local,
              Effect.as(changedFrom(raw, record, Effect.void), Option.none())
            )
            if (Option.isNone(outcome)) return yield* settle(id, input)
            const answered = yield* Effect.orDie(claim(raw, record))
            if (answered === undefined) return yield* settle(id, input)
            return yield* send(id, answered, record, outcome.value, input)
          }
        }
      })

    /** Sends the retry of a record this process claimed, and stores how it ended. */
    const send = (
      id: string,
      answered: string,
      record: Record,
      inputResponses: { [key: string]: unknown },
      input: FollowInput
    ): Effect.Effect<unknown, McpError.McpClientError> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(
          Effect.exit(restore(input.retry({
            inputResponses,
            ...(record.requestState === undefined ? {} : { requestState: record.requestState })
          }))),
          (exit) => {
            if (Exit.isSuccess(exit) && isInputRequired(exit.value)) {
              return restore(nextRound(id, answered, record, exit.value, input))
            }
            return Effect.zipRight(Effect.orDie(settleWith(answered, { ...record, state: "Answered" }, exit)), exit)
          }
        )
      )

    /** A further `input_required` answer: the same record, its next round, pending again. */
    const nextRound = (
      id: string,
      answered: string,
      record: Record,
      raw: unknown,
      input: FollowInput
    ): Effect.Effect<unknown, McpError.McpClientError> =>
      Effect.gen(function*() {
        const fail = (error: McpError.McpClientError) =>
          Effect.zipRight(Effect.orDie(settleWith(answered, record, Exit.fail(error))), Effect.fail(error))
        if (record.round >= input.maxRounds) {
          return yield* fail(
            new McpError.ProtocolError({
              code: McpError.ErrorCode.InternalError,
              method: input.method,
              message:
                `the server asked for input ${input.maxRounds} times in a row; ${input.method} was given up (client-side limit)`
            })
          )
        }
        const next = yield* Effect.catchAll(decodeRound(input.method, raw), fail)
        const now = yield* Clock.currentTimeMillis
        const { requestState: _, ...rest } = record
        yield* Effect.orDie(move(answered, {
          ...rest,
          ...(next.requestState === undefined ? {} : { requestState: next.requestState }),
          inputRequests: next.inputRequests ?? {},
          round: record.round + 1,
          state: "Pending",
          expiresAt: now + ttl
        }))
        return yield* settle(id, input)
      })

    const tracker = (server: Effect.Effect<string, McpError.McpClientError>): Tracker => ({
      follow: (input) =>
        Effect.gen(function*() {
          const first = yield* decodeRound(input.method, input.first)
          const now = yield* Clock.currentTimeMillis
          const identity = yield* FiberRef.get(currentIdentity)
          const logId = yield* FiberRef.get(currentLogId)
          const record: Record = {
            id: globalThis.crypto.randomUUID(),
            server: yield* server,
            method: input.method,
            ...(input.params === undefined ? {} : { params: input.params }),
            ...(first.requestState === undefined ? {} : { requestState: first.requestState }),
            inputRequests: first.inputRequests ?? {},
            ...(identity === undefined ? {} : { identity: yield* identityKey(identity) }),
            round: 1,
            createdAt: now,
            updatedAt: now,
            expiresAt: now + ttl,
            state: "Pending",
            ...(logId === undefined ? {} : { logId })
          }
          yield* Effect.orDie(collection.compareAndSet(record.id, Option.none(), encode(record)))
          return yield* settle(record.id, input)
        })
    })

    /** The tracker `answer` sets around its retry: a further round moves the record it answered. */
    const continuing = (id: string, answered: string, record: Record): Tracker => ({
      follow: (input) => nextRound(id, answered, record, input.first, input)
    })

    const all = Effect.map(
      collection.list,
      (entries) => entries.flatMap(([, raw]) => Option.toArray(decode(raw)))
    )

    const service: Continuations.Service = {
      tracker,
      list: (filter) =>
        Effect.gen(function*() {
          const records = yield* all
          const identity = filter?.identity === undefined ? undefined : yield* identityKey(filter.identity)
          const state = filter?.state === undefined ? "Pending" : filter.state
          return records.filter((record) =>
            (state === "All" || record.state === state) &&
            (filter?.server === undefined || record.server === filter.server) &&
            (identity === undefined || record.identity === identity)
          ).sort((a, b) => a.createdAt - b.createdAt)
        }),
      get: (id) => Effect.map(read(id), Option.map(([, record]) => record)),
      answer: (id, inputResponses, answerOptions) =>
        Effect.gen(function*() {
          const found = yield* read(id)
          if (Option.isNone(found)) return yield* new ContinuationNotFound({ id })
          const [raw, record] = found.value
          if (record.identity !== undefined) {
            const given = answerOptions.identity === undefined ? undefined : yield* identityKey(answerOptions.identity)
            if (given !== record.identity) return yield* new ContinuationForbidden({ id })
          }
          if (record.state === "Expired" || (yield* expireIfDue(raw, record))) {
            return yield* new ContinuationExpired({ id })
          }
          if (record.state !== "Pending") return yield* new ContinuationAlreadyAnswered({ id, state: record.state })
          const answered = yield* claim(raw, record)
          if (answered === undefined) {
            const now = yield* read(id)
            const state = Option.match(now, { onNone: () => "Completed" as const, onSome: ([, r]) => r.state })
            return yield* state === "Expired" ?
              new ContinuationExpired({ id }) :
              new ContinuationAlreadyAnswered({ id, state })
          }
          const params = {
            ...record.params,
            inputResponses,
            ...(record.requestState === undefined ? {} : { requestState: record.requestState })
          }
          return yield* Effect.uninterruptibleMask((restore) =>
            Effect.flatMap(
              Effect.exit(restore(
                Effect.locally(
                  answerOptions.client.session.request(record.method, params),
                  currentTracker,
                  continuing(id, answered, { ...record, state: "Answered" })
                )
              )),
              // after a further round the record has moved on, and this write is left out
              (exit) =>
                Effect.zipRight(Effect.orDie(settleWith(answered, { ...record, state: "Answered" }, exit)), exit)
            )
          )
        }),
      expire: (id) =>
        Effect.flatMap(read(id), (found) => {
          if (Option.isNone(found)) return Effect.succeed(false)
          const [raw, record] = found.value
          return record.state === "Pending" ?
            Effect.map(move(raw, { ...record, state: "Expired" }), (moved) => moved !== undefined) :
            Effect.succeed(false)
        }),
      cleanup: Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        let removed = 0
        for (const [id, raw] of yield* collection.list) {
          const record = Option.getOrUndefined(decode(raw))
          const done = record === undefined || record.state === "Completed" || record.state === "Failed" ||
            record.state === "Expired" || now >= record.expiresAt + ttl
          if (!done) continue
          if (record !== undefined && record.state === "Pending") {
            // past its expiry: expire it first, so that an answer racing the cleanup sees Expired
            if ((yield* move(raw, { ...record, state: "Expired" })) === undefined) continue
          }
          yield* collection.remove(id)
          removed++
        }
        return removed
      }),
      changes: Effect.map(
        collection.subscribe,
        (ids) =>
          ids.pipe(
            Stream.mapEffect((id) => Effect.map(read(id), Option.map(([, record]) => record))),
            Stream.filterMap((record) => record)
          )
      )
    }
    return service
  })

/** Whether a result asks for input. @internal */
export const isInputRequired = (raw: unknown): boolean =>
  typeof raw === "object" && raw !== null && (raw as { resultType?: unknown }).resultType === "input_required"
