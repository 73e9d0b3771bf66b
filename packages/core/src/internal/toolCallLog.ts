import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as DateTime from "effect/DateTime"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Subscribable from "effect/Subscribable"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as McpSchema from "../McpSchema.js"
import type * as ToolCallLog from "../ToolCallLog.js"

/** @internal */
export const Status = Schema.Literal(
  "AwaitingApproval",
  "Denied",
  "Running",
  "Completed",
  "Failed",
  "Cancelled",
  "TimedOut"
)

/** @internal */
export const ToolCallRecord = Schema.Struct({
  id: Schema.String,
  server: Schema.String,
  tool: Schema.String,
  arguments: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  status: Status,
  taskId: Schema.optional(Schema.String),
  taskStatus: Schema.optional(McpSchema.TaskStatus),
  progress: Schema.optional(Schema.Struct({
    progress: Schema.Number,
    total: Schema.optional(Schema.Number),
    message: Schema.optional(Schema.String)
  })),
  startedAt: Schema.DateTimeUtcFromNumber,
  updatedAt: Schema.DateTimeUtcFromNumber,
  endedAt: Schema.optional(Schema.DateTimeUtcFromNumber),
  result: Schema.optional(McpSchema.CallToolResult),
  error: Schema.optional(Schema.Struct({ _tag: Schema.String, message: Schema.String }))
})

const Index = Schema.Array(Schema.String)

const defaultPrefix = "mcp-effect/tool-calls/"
const defaultRetention = 1000

const isFinal = (status: ToolCallLog.Status) => status !== "AwaitingApproval" && status !== "Running"

/** @internal */
export const make = (
  options: ToolCallLog.Options = {}
): Effect.Effect<ToolCallLog.Service, never, KeyValueStore.KeyValueStore | Scope.Scope> =>
  Effect.gen(function*() {
    const kv = yield* KeyValueStore.KeyValueStore
    // `records.changes` ends when the log's scope closes, like every public stream
    const closed = yield* Deferred.make<void>()
    yield* Effect.addFinalizer(() => Deferred.succeed(closed, undefined))
    const records = kv.forSchema(ToolCallRecord)
    const index = kv.forSchema(Index)
    const prefix = options.prefix ?? defaultPrefix
    const retention = Math.max(1, Math.floor(options.retention ?? defaultRetention))
    const indexKey = `${prefix}index`
    const recordKey = (id: string) => `${prefix}call/${id}`

    const warn = (what: string) => (error: { readonly message: string }) =>
      Effect.logWarning(`mcp: tool call log: could not ${what}`, error.message)

    const loaded = yield* index.get(indexKey).pipe(
      Effect.map(Option.getOrElse((): ReadonlyArray<string> => [])),
      Effect.flatMap((ids) =>
        Effect.forEach(ids.slice(-retention), (id) =>
          records.get(recordKey(id)).pipe(
            Effect.map(Option.getOrUndefined),
            Effect.catchAll((error) => Effect.as(warn(`read record ${id}`)(error), undefined))
          ))
      ),
      Effect.map((list) => list.filter((r): r is ToolCallLog.ToolCallRecord => r !== undefined)),
      Effect.catchAll((error) => Effect.as(warn("read the index")(error), []))
    )
    const ref = yield* SubscriptionRef.make<ReadonlyArray<ToolCallLog.ToolCallRecord>>(loaded)
    // one writer at a time, so the store sees the changes in the order they happened
    const lock = yield* Effect.makeSemaphore(1)

    const writeIndex = (list: ReadonlyArray<ToolCallLog.ToolCallRecord>) =>
      Effect.catchAll(index.set(indexKey, list.map((r) => r.id)), warn("write the index"))
    const writeRecord = (record: ToolCallLog.ToolCallRecord) =>
      Effect.catchAll(records.set(recordKey(record.id), record), warn(`write record ${record.id}`))

    const newId = Effect.zipWith(
      DateTime.now,
      Random.nextIntBetween(0, 0x7fffffff),
      (now, n) => `${DateTime.toEpochMillis(now).toString(36)}-${n.toString(36)}`
    )

    const service: ToolCallLog.Service = {
      records: Subscribable.make({
        get: SubscriptionRef.get(ref),
        changes: Stream.interruptWhenDeferred(ref.changes, closed)
      }),
      start: (start) =>
        lock.withPermits(1)(Effect.gen(function*() {
          const id = yield* newId
          const now = yield* DateTime.now
          const record: ToolCallLog.ToolCallRecord = {
            id,
            server: start.server,
            tool: start.tool,
            ...(start.arguments !== undefined ? { arguments: start.arguments } : {}),
            status: start.status,
            startedAt: now,
            updatedAt: now,
            ...(isFinal(start.status) ? { endedAt: now } : {})
          }
          const before = yield* SubscriptionRef.get(ref)
          const all = [...before, record]
          const evicted = all.length > retention ? all.splice(0, all.length - retention) : []
          yield* SubscriptionRef.set(ref, all)
          yield* writeRecord(record)
          yield* writeIndex(all)
          yield* Effect.forEach(evicted, (r) => Effect.catchAll(kv.remove(recordKey(r.id)), warn(`remove record ${r.id}`)), {
            discard: true
          })
          return id
        })),
      update: (id, update) =>
        lock.withPermits(1)(Effect.gen(function*() {
          const now = yield* DateTime.now
          const list = yield* SubscriptionRef.get(ref)
          const at = list.findIndex((r) => r.id === id)
          if (at < 0) return
          const current = list[at]!
          const next: ToolCallLog.ToolCallRecord = {
            ...current,
            ...update,
            updatedAt: now,
            ...(update.status !== undefined && isFinal(update.status) && current.endedAt === undefined ?
              { endedAt: now } :
              {})
          }
          yield* SubscriptionRef.set(ref, list.map((r, i) => i === at ? next : r))
          yield* writeRecord(next)
        })),
      clear: lock.withPermits(1)(Effect.gen(function*() {
        const list = yield* SubscriptionRef.getAndSet(ref, [])
        yield* Effect.forEach(list, (r) => Effect.catchAll(kv.remove(recordKey(r.id)), warn(`remove record ${r.id}`)), {
          discard: true
        })
        yield* writeIndex([])
      }))
    }
    return service
  })
