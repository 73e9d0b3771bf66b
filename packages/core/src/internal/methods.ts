/**
 * The method table: one row per client-to-server request this library
 * sends, with what the engine needs to know about it. Every per-method rule
 * reads this table (the pending table's replay and progress defaults, the
 * era codecs' input rounds, task handles and decoration, the resume
 * tracking), so a method is described once. Result schemas are not here:
 * the client pairs them with methods in its own typed table
 * (`client/results.ts`), so a session that never decodes a result does not bundle
 * them.
 */
import type * as SessionModel from "./engine/sessionModel.js"

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
 * One method's row (a flag left out is `false`: the table lists what is
 * true of each method).
 *
 * @internal
 */
export interface Method {
  /** The only era the method exists in; left out, it exists in both. */
  readonly era?: SessionModel.Era
  /** Whether it may be sent again on a new connection when the one it was sent on is lost. */
  readonly replay?: true
  /** Whether progress notifications reset its idle timeout (unless a request says otherwise). */
  readonly progress?: true
  /** 2026-07-28: whether its result may be `input_required` (followed by rounds of answers). */
  readonly inputRounds?: true
  /** 2026-07-28: whether its result may be a task handle (followed by `tasks/get`). */
  readonly taskHandle?: true
  /** Whether it opens a connection (its params carry their own handshake data: never decorated). */
  readonly handshake?: true
  /** How it is given up; `notice` when left out. */
  readonly cancel?: Cancel
  /** What the resume tracking remembers of it. */
  readonly tracked?: Tracked
}

/**
 * The table.
 *
 * @internal
 */
export const methods = {
  "initialize": { era: "legacy", handshake: true, cancel: "never" },
  "server/discover": { era: "modern", replay: true },
  "ping": { era: "legacy", replay: true },
  "tools/list": { replay: true },
  "tools/call": { progress: true, inputRounds: true, taskHandle: true },
  "resources/list": { replay: true },
  "resources/templates/list": { replay: true },
  "resources/read": { replay: true, progress: true, inputRounds: true },
  "resources/subscribe": { era: "legacy", replay: true, tracked: "subscribe" },
  "resources/unsubscribe": { era: "legacy", replay: true, tracked: "unsubscribe" },
  "subscriptions/listen": { era: "modern", replay: true },
  "prompts/list": { replay: true },
  "prompts/get": { replay: true, progress: true, inputRounds: true },
  "completion/complete": { replay: true },
  "logging/setLevel": { era: "legacy", replay: true, tracked: "logLevel" },
  "tasks/get": { replay: true },
  "tasks/list": { era: "legacy", replay: true },
  "tasks/result": { era: "legacy", replay: true, progress: true },
  "tasks/cancel": {},
  "tasks/update": { era: "modern" },
  // a server-to-client request, listed for its progress rule (the client answers it)
  "sampling/createMessage": { progress: true }
} as const satisfies Record<string, Method>

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
export const replayable: ReadonlySet<string> = namesWhere((m) => m.replay === true)

/**
 * The methods whose idle timeout resets on progress by default.
 *
 * @internal
 */
export const progressResets: ReadonlySet<string> = namesWhere((m) => m.progress === true)

/**
 * Whether `method` exists in `era` (a method the table does not know is
 * the caller's to judge: it is sent).
 *
 * @internal
 */
export const existsIn = (method: string, era: SessionModel.Era): boolean => {
  const row = table[method]
  return row?.era === undefined || row.era === era
}
