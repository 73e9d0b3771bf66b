import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as DateTime from "effect/DateTime"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Subscribable from "effect/Subscribable"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as McpSchema from "../../McpSchema.js"
import type * as ToolCallLog from "../../ToolCallLog.js"
import { currentOrigin, Origin } from "./origin.js"
import * as SharedStore from "./sharedStore.js"

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
  error: Schema.optional(Schema.Struct({ _tag: Schema.String, message: Schema.String })),
  origin: Schema.optional(Origin)
})

const Stored = Schema.parseJson(ToolCallRecord)
const decodeStored = Schema.decode(Stored)
const encodeStored = Schema.encode(Stored)

const defaultPrefix = "mcp-effect/tool-calls/"
const defaultRetention = 1000

const isFinal = (status: ToolCallLog.Status) => status !== "AwaitingApproval" && status !== "Running"

/** Inserts or replaces a record, keeping the list in id (start) order. */
const upsert = (list: ReadonlyArray<ToolCallLog.ToolCallRecord>, record: ToolCallLog.ToolCallRecord) => {
  const at = list.findIndex((r) => r.id === record.id)
  if (at >= 0) return list.map((r, i) => i === at ? record : r)
  const after = list.findIndex((r) => SharedStore.byId(r.id, record.id) > 0)
  return after < 0 ? [...list, record] : [...list.slice(0, after), record, ...list.slice(after)]
}

/** @internal */
export const make = (
  options: ToolCallLog.Options = {}
): Effect.Effect<ToolCallLog.Service, never, KeyValueStore.KeyValueStore | Scope.Scope> =>
  Effect.gen(function*() {
    const store = yield* SharedStore.fromContext
    // `records.changes` ends when the log's scope closes, like every public stream
    const closed = yield* Deferred.make<void>()
    yield* Effect.addFinalizer(() => Deferred.succeed(closed, undefined))
    const prefix = options.prefix ?? defaultPrefix
    const retention = Math.max(1, Math.floor(options.retention ?? defaultRetention))
    const calls = store.collection(`${prefix}call`)

    const warn = (what: string) => (error: { readonly message: string }) =>
      Effect.logWarning(`mcp: tool call log: could not ${what}`, error.message)

    // subscribed before the records are read, so that no change falls between the two
    const changed = yield* calls.subscribe.pipe(
      Effect.catchAll((error) => Effect.as(warn("watch the records")(error), Stream.empty))
    )
    /** The stored text of each record this process knows, to tell its own writes from news. */
    const known = new Map<string, string>()
    const decode = (id: string, text: string) =>
      decodeStored(text).pipe(
        Effect.tap(() => Effect.sync(() => known.set(id, text))),
        Effect.map(Option.some),
        Effect.catchAll((error) =>
          Effect.as(warn(`read record ${id}`)(error), Option.none<ToolCallLog.ToolCallRecord>())
        )
      )
    const loaded = yield* calls.list.pipe(
      Effect.flatMap((entries) => Effect.forEach(entries.slice(-retention), ([id, text]) => decode(id, text))),
      Effect.map((list) => list.flatMap((r) => Option.isSome(r) ? [r.value] : [])),
      Effect.catchAll((error) => Effect.as(warn("read the records")(error), []))
    )
    const ref = yield* SubscriptionRef.make<ReadonlyArray<ToolCallLog.ToolCallRecord>>(loaded)
    // one writer at a time, so the store sees the changes in the order they happened
    const lock = yield* Effect.makeSemaphore(1)

    const writeRecord = (record: ToolCallLog.ToolCallRecord) =>
      encodeStored(record).pipe(
        Effect.flatMap((text) =>
          Effect.zipRight(Effect.sync(() => known.set(record.id, text)), calls.put(record.id, text))
        ),
        Effect.catchAll(warn(`write record ${record.id}`))
      )
    const removeRecord = (id: string) =>
      Effect.zipRight(
        Effect.sync(() => known.delete(id)),
        Effect.catchAll(calls.remove(id), warn(`remove record ${id}`))
      )

    /** Follows a record another process (or this one) changed: the store is the truth. */
    const follow = (id: string) =>
      calls.get(id).pipe(
        Effect.flatMap(Option.match({
          onNone: () =>
            Effect.suspend(() => {
              known.delete(id)
              return SubscriptionRef.update(
                ref,
                (list) => list.some((r) => r.id === id) ? list.filter((r) => r.id !== id) : list
              )
            }),
          onSome: (text) =>
            known.get(id) === text ? Effect.void : Effect.flatMap(
              decode(id, text),
              Option.match({
                onNone: () => Effect.void,
                onSome: (record) =>
                  SubscriptionRef.update(ref, (list) => {
                    const all = upsert(list, record)
                    // beyond the retention: forgotten here too (the process that started it removes it from the store)
                    for (const dropped of all.slice(0, Math.max(0, all.length - retention))) known.delete(dropped.id)
                    return all.slice(-retention)
                  })
              })
            )
        })),
        Effect.catchAll(warn(`read record ${id}`))
      )
    // the changes that arrived together, each record read once
    yield* Effect.forkScoped(
      Stream.runForEachChunk(
        changed,
        (ids) => lock.withPermits(1)(Effect.forEach(new Set(ids), follow, { discard: true }))
      )
    )

    let sequence = 0
    const newId = Effect.zipWith(
      DateTime.now,
      Random.nextIntBetween(0, 0x7fffffff),
      // time, then the order of starts in this process, then a random part: ids sort in start order
      (now, n) =>
        `${DateTime.toEpochMillis(now).toString(36).padStart(9, "0")}-${(sequence++).toString(36).padStart(4, "0")}-${
          n.toString(36)
        }`
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
          // read in the caller's fiber: the call's origin, when something other than the app's own code made it
          const origin = start.origin ?? (yield* FiberRef.get(currentOrigin))
          const record: ToolCallLog.ToolCallRecord = {
            id,
            server: start.server,
            tool: start.tool,
            ...(start.arguments !== undefined ? { arguments: start.arguments } : {}),
            status: start.status,
            startedAt: now,
            updatedAt: now,
            ...(isFinal(start.status) ? { endedAt: now } : {}),
            ...(origin !== undefined ? { origin } : {})
          }
          const all = [...upsert(yield* SubscriptionRef.get(ref), record)]
          const evicted = all.length > retention ? all.splice(0, all.length - retention) : []
          yield* SubscriptionRef.set(ref, all)
          yield* writeRecord(record)
          yield* Effect.forEach(evicted, (r) => removeRecord(r.id), { discard: true })
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
        // the records of other processes too, and those this one no longer holds
        const stored = yield* calls.list.pipe(
          Effect.map((entries) => entries.map(([id]) => id)),
          Effect.catchAll((error) => Effect.as(warn("read the records")(error), []))
        )
        yield* Effect.forEach(new Set([...list.map((r) => r.id), ...stored]), removeRecord, { discard: true })
      }))
    }
    return service
  })
