/**
 * The method table: one row per client-to-server request this library
 * sends, with what the engine needs to know about it. Every per-method rule
 * reads this table (the pending table's replay and progress defaults, the
 * era codecs' input rounds, task handles and decoration, the resume
 * tracking), so a method is described once. Result schemas are not here:
 * the client pairs them with methods in its own typed table
 * (`client.ts`), so a session that never decodes a result does not bundle
 * them.
 */
import type * as Era from "./era/negotiation.js"

/**
 * How a request in flight is given up.
 *
 * - `notice`: `notifications/cancelled` naming its id (in 2026-07-28 over
 *   HTTP, closing the request's stream says the same; the era codec decides).
 * - `never`: the request must not be cancelled (`initialize`).
 *
 * @internal
 */
export type Cancel = "notice" | "never"

/**
 * What the resume tracking remembers of a successful request.
 *
 * @internal
 */
export type Tracked = "subscribe" | "unsubscribe" | "logLevel"

/**
 * One method's row.
 *
 * @internal
 */
export interface Method {
  /** The eras the method exists in. */
  readonly eras: ReadonlyArray<Era.Era>
  /** Whether it may be sent again on a new connection when the one it was sent on is lost. */
  readonly replay: boolean
  /** Whether progress notifications reset its idle timeout (unless a request says otherwise). */
  readonly progress: boolean
  /** 2026-07-28: whether its result may be `input_required` (followed by rounds of answers). */
  readonly inputRounds: boolean
  /** 2026-07-28: whether its result may be a task handle (followed by `tasks/get`). */
  readonly taskHandle: boolean
  /** Whether it opens a connection (its params carry their own handshake data: never decorated). */
  readonly handshake: boolean
  readonly cancel: Cancel
  /** What the resume tracking remembers of it. */
  readonly tracked?: Tracked | undefined
}

const both: ReadonlyArray<Era.Era> = ["legacy", "modern"]
const legacy: ReadonlyArray<Era.Era> = ["legacy"]
const modern: ReadonlyArray<Era.Era> = ["modern"]

const row = (eras: ReadonlyArray<Era.Era>, options: Partial<Omit<Method, "eras">> = {}): Method => ({
  eras,
  replay: false,
  progress: false,
  inputRounds: false,
  taskHandle: false,
  handshake: false,
  cancel: "notice",
  ...options
})

/** A read: replayed on a new connection. */
const read = (eras: ReadonlyArray<Era.Era>, options: Partial<Omit<Method, "eras">> = {}) =>
  row(eras, { replay: true, ...options })

/**
 * The table.
 *
 * @internal
 */
export const methods = {
  "initialize": row(legacy, { handshake: true, cancel: "never" }),
  "server/discover": read(modern),
  "ping": read(legacy),
  "tools/list": read(both),
  "tools/call": row(both, { progress: true, inputRounds: true, taskHandle: true }),
  "resources/list": read(both),
  "resources/templates/list": read(both),
  "resources/read": read(both, { progress: true, inputRounds: true }),
  "resources/subscribe": read(legacy, { tracked: "subscribe" }),
  "resources/unsubscribe": read(legacy, { tracked: "unsubscribe" }),
  "subscriptions/listen": read(modern),
  "prompts/list": read(both),
  "prompts/get": read(both, { progress: true, inputRounds: true }),
  "completion/complete": read(both),
  "logging/setLevel": read(legacy, { tracked: "logLevel" }),
  "tasks/get": read(both),
  "tasks/list": read(legacy),
  "tasks/result": read(legacy, { progress: true }),
  "tasks/cancel": row(both),
  "tasks/update": row(modern),
  // a server-to-client request, listed for its progress rule (the client answers it)
  "sampling/createMessage": row(both, { progress: true })
} satisfies Record<string, Method>

/**
 * A method of the table.
 *
 * @internal
 */
export type Name = keyof typeof methods

const table: Readonly<Record<string, Method | undefined>> = methods

/**
 * The row of `method`, or `undefined` for a method the table does not know
 * (an extension's, sent through `session.request`: never replayed, no
 * rounds, progress does not reset its timeout).
 *
 * @internal
 */
export const lookup = (method: string): Method | undefined => table[method]

const namesWhere = (predicate: (method: Method) => boolean): ReadonlySet<string> =>
  new Set(Object.keys(methods).filter((name) => predicate(table[name]!)))

/**
 * The methods replayed on a new connection by default.
 *
 * @internal
 */
export const replayable: ReadonlySet<string> = namesWhere((m) => m.replay)

/**
 * The methods whose idle timeout resets on progress by default.
 *
 * @internal
 */
export const progressResets: ReadonlySet<string> = namesWhere((m) => m.progress)

/**
 * Whether `method` exists in `era` (a method the table does not know is
 * the caller's to judge: it is sent).
 *
 * @internal
 */
export const existsIn = (method: string, era: Era.Era): boolean => {
  const row = table[method]
  return row === undefined || row.eras.includes(era)
}
