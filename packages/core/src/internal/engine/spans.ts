/**
 * Span names and attributes, after OpenTelemetry's semantic conventions for
 * MCP (`mcp.*`, `jsonrpc.request.id`, `gen_ai.tool.name`, `network.transport`,
 * `error.type`). Attributes never carry request arguments or results: only
 * the method, ids, the tool or prompt name and the error's kind.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import type * as McpError from "../../McpError.js"
import type { Connection } from "../../McpTransport.js"

/** Effect's built-in tracer, which keeps spans in memory and reports them to no one. */
const builtInTracer = Context.get(DefaultServices.liveServices, Tracer.Tracer)

/**
 * Whether a span made on this fiber reaches anyone: tracing is enabled and a
 * tracer other than the built-in one is installed. The request path skips its
 * span otherwise, so an app without tracing pays one check per request.
 *
 * @internal
 */
export const isTracing = (fiber: Fiber.RuntimeFiber<unknown, unknown>): boolean =>
  fiber.getFiberRef(FiberRef.currentTracerEnabled) &&
  Context.get(fiber.getFiberRef(DefaultServices.currentServices), Tracer.Tracer) !== builtInTracer

/** @internal */
export const requestSpanName = (method: string): string => `mcp.client ${method}`

/**
 * The options of a request's span: kind client, and the attributes known
 * before it is sent.
 *
 * @internal
 */
export const requestSpanOptions = (
  method: string,
  params: Record<string, unknown> | undefined,
  protocolVersion: string | undefined
): Tracer.SpanOptions => {
  const attributes: Record<string, unknown> = { "mcp.method.name": method }
  if (protocolVersion !== undefined) attributes["mcp.protocol.version"] = protocolVersion
  const name = params?.name
  if (typeof name === "string") {
    if (method === "tools/call") {
      attributes["gen_ai.tool.name"] = name
      attributes["gen_ai.operation.name"] = "execute_tool"
    } else if (method === "prompts/get") {
      attributes["gen_ai.prompt.name"] = name
    }
  }
  return { kind: "client", attributes, captureStackTrace: false }
}

/**
 * What a connection tells about itself: `network.transport` and, once the
 * server assigned one, `mcp.session.id`. Set each time the request is sent
 * (a replay after a reconnect goes out on another connection).
 *
 * @internal
 */
export const annotateConnection = (span: Tracer.Span, connection: Connection): void => {
  if (connection.networkTransport !== undefined) span.attribute("network.transport", connection.networkTransport)
  const sessionId = connection.sessionId?.()
  if (sessionId !== undefined) span.attribute("mcp.session.id", sessionId)
}

/**
 * The kind of a failure, for `error.type`: a JSON-RPC error's code, or the
 * error's tag (`RequestTimeout`, `OutcomeUnknown`, `TransportError`, …).
 *
 * @internal
 */
export const errorType = (error: McpError.McpClientError): string =>
  error._tag === "ProtocolError" ? String(error.code) : error._tag

/**
 * Annotates a request's span with its outcome before it ends: `error.type`
 * (and `rpc.response.status_code` for a JSON-RPC error) on failure,
 * `error.type` `tool_error` for a tool result with `isError`, and the
 * negotiated `mcp.protocol.version` for `initialize`.
 *
 * @internal
 */
export const annotateOutcome = (
  span: Tracer.Span,
  method: string,
  exit: Exit.Exit<unknown, McpError.McpClientError>
): void => {
  if (Exit.isSuccess(exit)) {
    const result = exit.value as Record<string, unknown> | null | undefined
    if (typeof result !== "object" || result === null) return
    if (method === "tools/call" && result.isError === true) span.attribute("error.type", "tool_error")
    if (method === "initialize" && typeof result.protocolVersion === "string") {
      span.attribute("mcp.protocol.version", result.protocolVersion)
    }
    return
  }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) return
  span.attribute("error.type", errorType(failure.value))
  if (failure.value._tag === "ProtocolError") span.attribute("rpc.response.status_code", String(failure.value.code))
}
