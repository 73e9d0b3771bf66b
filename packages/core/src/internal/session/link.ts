import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import type * as Tracer from "effect/Tracer"
import type * as McpError from "../../McpError.js"
import type { Connection } from "../../McpTransport.js"
import type * as SessionModel from "../engine/sessionModel.js"

/**
 * One connection the session reads. `alive` turns `false` once, when the
 * connection is lost; requests sent on it are then settled or resent.
 *
 * @internal
 */
export interface Live {
  readonly connection: Connection
  readonly generation: number
  alive: boolean
}

/**
 * Where the session's link to the server is, as one value:
 *
 * - `Connecting`: no connection has been initialized yet;
 * - `Ready`: `live` is initialized and takes requests;
 * - `Reconnecting`: an initialized connection was lost; `span` is the
 *   `mcp.client reconnect` span, open until the next `Ready` or `Closed`;
 * - `Closed`: the session is over and every request fails with `error`.
 *
 * Requests that come while there is no ready connection wait on `ready`,
 * which the next `Ready` completes (or `Closed` fails).
 *
 * @internal
 */
export type Link =
  | {
    readonly _tag: "Connecting"
    readonly ready: Deferred.Deferred<Live, McpError.McpClientError>
    /** Why the last connection ended or its handshake failed: the transport alone cannot know it. */
    readonly lastFailure: McpError.McpClientError | undefined
  }
  | { readonly _tag: "Ready"; readonly live: Live; readonly initialized: SessionModel.Initialized }
  | {
    readonly _tag: "Reconnecting"
    readonly ready: Deferred.Deferred<Live, McpError.McpClientError>
    readonly lastFailure: McpError.McpClientError
    readonly previous: SessionModel.Initialized
    readonly span: Tracer.Span
  }
  | {
    readonly _tag: "Closed"
    readonly error: McpError.McpClientError
    readonly previous: SessionModel.Initialized | undefined
  }

/**
 * The session's one `Link`, in a plain field: a request reads it in the
 * step that sends the request (through a `Ref` each read would be an effect
 * step of its own, on every call).
 *
 * @internal
 */
export class Cell {
  constructor(public current: Link) {}
}

/** @internal */
export const make: Effect.Effect<Cell> = Effect.sync(() =>
  new Cell({ _tag: "Connecting", ready: Deferred.unsafeMake(FiberId.none), lastFailure: undefined })
)

/** The link as the effect runs. @internal */
export const get = (cell: Cell): Effect.Effect<Link> => Effect.sync(() => cell.current)

/** The live connection, at once when one is ready, else once the next is. @internal */
export const awaitLive = (cell: Cell): Effect.Effect<Live, McpError.McpClientError> =>
  Effect.suspend(() => {
    const current = cell.current
    switch (current._tag) {
      case "Ready":
        return Effect.succeed(current.live)
      case "Closed":
        return Effect.fail(current.error)
      default:
        return Deferred.await(current.ready)
    }
  })

/** The initialization of the last connection that was ready, if any. @internal */
export const lastInitialized = (current: Link): SessionModel.Initialized | undefined => {
  switch (current._tag) {
    case "Ready":
      return current.initialized
    case "Connecting":
      return undefined
    default:
      return current.previous
  }
}

/** Whether a connection of this session was ever initialized. @internal */
export const wasEstablished = (current: Link): boolean => lastInitialized(current) !== undefined

/** The last failure, for errors and retry reports. @internal */
export const lastFailure = (current: Link): McpError.McpClientError | undefined =>
  current._tag === "Connecting" || current._tag === "Reconnecting" ? current.lastFailure : undefined

/** Releases the requests that wait for a connection. @internal */
export const release = (current: Link, outcome: Exit.Exit<Live, McpError.McpClientError>): void => {
  if (current._tag === "Connecting" || current._tag === "Reconnecting") Deferred.unsafeDone(current.ready, outcome)
}

/** A fresh gate for requests that come while there is no ready connection. @internal */
export const newGate = (): Deferred.Deferred<Live, McpError.McpClientError> => Deferred.unsafeMake(FiberId.none)
