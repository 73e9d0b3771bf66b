/**
 * One way to keep secrets out of what an app shows or exports: spans, logs,
 * error messages, statuses and key names. Secrets travel in places nobody
 * marks as secret: an API key in a server URL's query (`?api_key=…`), an
 * authorization code in a redirect's `Location`, a token in a stdio
 * server's environment that the server prints on its stderr.
 *
 * - `url` keeps what identifies a server (scheme, host, port, path, the
 *   names of the query parameters) and replaces every query value, any
 *   user info and any fragment by `<redacted>`:
 *   `https://h/mcp?api_key=<redacted>`.
 * - `text` does the same to every URL inside free text (an error message).
 * - `masker` replaces given values (an environment's, a config's) wherever
 *   they appear.
 * - `neutralize` makes text a server supplied safe to show: no escape
 *   sequences, control, bidi or invisible characters (a close reason, an
 *   authorization server's `error_description`).
 * - `cause` redacts the errors of a failure (a platform `HttpClientError`
 *   quotes the full request URL in its message).
 * - `tracer` wraps a `Tracer` so every attribute a span gets passes through
 *   `attribute`, and the failure it ends with through `cause` (the
 *   platform's `HttpClient` sets `url.full`, `url.query` and
 *   `http.response.header.location` from the request and response, and
 *   ends its span with its own error); `httpClient` runs an `HttpClient`'s
 *   requests under it.
 *
 * What is not redacted: a secret in a URL's path (a webhook-style
 * `/mcp/<token>`), which is indistinguishable from a route.
 *
 * @example
 * ```ts
 * import { Redaction } from "@mcp-effect/core"
 *
 * Redaction.url("https://example.com/mcp?api_key=sk-123&region=eu")
 * // "https://example.com/mcp?api_key=<redacted>&region=<redacted>"
 *
 * const mask = Redaction.masker(["sk-live-0123456789"])
 * mask("auth failed for sk-live-0123456789") // "auth failed for <redacted>"
 * ```
 *
 * @since 0.3.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Exit from "effect/Exit"
import * as Tracer from "effect/Tracer"
import * as RedactedHttpClient from "./internal/platform/redactedHttpClient.js"
import * as Neutralize from "./internal/wire/neutralize.js"

/**
 * What replaces a secret.
 *
 * @since 0.3.0
 * @category constants
 */
export const placeholder = "<redacted>"

/**
 * A query string (with or without its `?`) with every value replaced: each
 * `name=value` keeps its name, a part without `=` (which may be a bare
 * token) is replaced whole.
 *
 * @since 0.3.0
 * @category redaction
 */
export const query = (search: string): string => {
  const body = search.startsWith("?") ? search.slice(1) : search
  if (body === "") return search
  const parts = body.split("&").map((part) => {
    if (part === "") return part
    const equals = part.indexOf("=")
    return equals === -1 ? placeholder : `${part.slice(0, equals)}=${placeholder}`
  })
  return (search.startsWith("?") ? "?" : "") + parts.join("&")
}

/** Whether a URL carries nothing to redact (no user info, query or fragment). */
const isPlain = (url: URL): boolean =>
  url.username === "" && url.password === "" && url.search === "" && url.hash === ""

/** A URL as written when it carries nothing to redact (an issuer's trailing slash is meaningful), else redacted. */
const redactWritten = (written: string, url: URL): string =>
  isPlain(url) && !/[?#@]/.test(written) ? written : redactParsed(url)

const redactParsed = (url: URL): string =>
  `${url.protocol}//${url.username !== "" || url.password !== "" ? `${placeholder}@` : ""}${url.host}${url.pathname}` +
  `${query(url.search)}${url.hash === "" ? "" : `#${placeholder}`}`

/**
 * A URL with its query values, user info and fragment replaced by
 * `<redacted>`; scheme, host, port, path and parameter names stay. Text that
 * is not a URL is redacted as `text`.
 *
 * @since 0.3.0
 * @category redaction
 */
export const url = (input: string | URL): string => {
  if (typeof input !== "string") return redactParsed(input)
  let parsed: URL
  try {
    parsed = new URL(input)
  } catch {
    return text(input)
  }
  return redactWritten(input, parsed)
}

/** An absolute URL inside free text: a scheme, `://`, and everything up to a space, quote or bracket. */
const urlInText = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>()[\]{}]+/gi

/**
 * Free text (an error message, a log line) with every absolute URL in it
 * redacted as `url`.
 *
 * @since 0.3.0
 * @category redaction
 */
export const text = (input: string): string =>
  input.includes("://")
    ? input.replace(urlInText, (found) => {
      try {
        return redactWritten(found, new URL(found))
      } catch {
        return placeholder
      }
    })
    : input

/**
 * Values shorter than this are not masked by `masker`: they would mask
 * ordinary words and numbers (`1`, `true`, `eu`) all over the text.
 *
 * @since 0.3.0
 * @category constants
 */
export const minSecretLength = 6

const escapeRegExp = (value: string): string => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Text from a server made safe to show to a person or a model: ANSI escape
 * sequences, control characters, bidi controls and invisible characters are
 * removed; CR LF and lone CR become LF. With `"line"`, line breaks and tabs
 * become spaces too (a reason, a description quoted in an error message).
 * The same function as `ApprovalRequest.neutralize`.
 *
 * @since 0.5.0
 * @category utils
 */
export const neutralize: (text: string, mode?: "line" | "text") => string = Neutralize.neutralize

/**
 * A function that replaces each of `secrets` wherever it appears in a text,
 * longest first (so a secret containing another is masked whole). Values
 * shorter than `minSecretLength` are left alone.
 *
 * @since 0.3.0
 * @category redaction
 */
export const masker = (secrets: Iterable<string>): (input: string) => string => {
  const kept = [...new Set(secrets)].filter((secret) => secret.length >= minSecretLength)
  if (kept.length === 0) return (input) => input
  kept.sort((a, b) => b.length - a.length)
  const pattern = new RegExp(kept.map(escapeRegExp).join("|"), "g")
  return (input) => input.replace(pattern, placeholder)
}

/**
 * A span attribute as it may be exported: `url.query` with its values
 * replaced, `url.full` and any `….location` header redacted as `url`, any
 * other string redacted as `text`; other values unchanged.
 *
 * @since 0.3.0
 * @category redaction
 */
export const attribute = (key: string, value: unknown): unknown => {
  if (typeof value !== "string") return value
  if (key === "url.query") return query(value)
  if (key === "url.full" || key.endsWith(".location")) return url(value)
  return text(value)
}

/** An error as it may be shown: a plain `Error` with the same name, its message, stack and causes redacted as `text`. */
const redactError = (error: unknown, depth = 0): unknown => {
  if (typeof error === "string") return text(error)
  if (!(error instanceof Error) || depth > 4) return error
  const copy = error.cause === undefined
    ? new Error(text(error.message))
    : new Error(text(error.message), { cause: redactError(error.cause, depth + 1) })
  copy.name = error.name
  if (error.stack !== undefined) copy.stack = text(error.stack)
  return copy
}

/**
 * A cause whose errors and defects are redacted: each `Error` becomes a plain
 * `Error` with the same name and its message, stack and causes redacted as
 * `text` (a platform `HttpClientError` quotes the full request URL in its
 * message); a string is redacted as `text`. For what is exported of a
 * failure: a span's status, a log line.
 *
 * @since 0.3.0
 * @category redaction
 */
export const cause = <E>(self: Cause.Cause<E>): Cause.Cause<unknown> =>
  Cause.match(self, {
    onEmpty: Cause.empty as Cause.Cause<unknown>,
    onFail: (error) => Cause.fail(redactError(error)),
    onDie: (defect) => Cause.die(redactError(defect)),
    onInterrupt: (fiberId) => Cause.interrupt(fiberId),
    onSequential: (left, right) => Cause.sequential(left, right),
    onParallel: (left, right) => Cause.parallel(left, right)
  })

/**
 * The span, seen through a proxy whose `attribute` and `event` redact and
 * whose `end` redacts the failure; everything else (and every write) is the
 * span's own, so a tracer that recognises its spans (`instanceof`) still does.
 */
const redacting = (span: Tracer.Span): Tracer.Span =>
  new Proxy(span, {
    get: (target, key) => {
      switch (key) {
        case "attribute":
          return (name: string, value: unknown) => target.attribute(name, attribute(name, value))
        case "event":
          return (name: string, startTime: bigint, attributes?: Record<string, unknown>) =>
            target.event(
              name,
              startTime,
              attributes && Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, attribute(k, v)]))
            )
        case "end":
          return (endTime: bigint, exit: Exit.Exit<unknown, unknown>) =>
            target.end(endTime, Exit.isFailure(exit) ? Exit.failCause(cause(exit.cause)) : exit)
      }
      const value: unknown = Reflect.get(target, key, target)
      return typeof value === "function" ? value.bind(target) : value
    }
  })

/** Each tracer's redacting tracer, and each redacting tracer itself. */
const wrappers = new WeakMap<Tracer.Tracer, Tracer.Tracer>()
const builtInTracer = Context.get(DefaultServices.liveServices, Tracer.Tracer)

/**
 * `inner`, with every span attribute (those given when a span starts and
 * those set later) passed through `attribute`. Effect's built-in tracer,
 * which reports to no one, and a tracer already redacting are returned
 * as they are.
 *
 * @since 0.3.0
 * @category tracing
 */
export const tracer = (inner: Tracer.Tracer): Tracer.Tracer => {
  if (inner === builtInTracer) return inner
  let wrapped = wrappers.get(inner)
  if (wrapped === undefined) {
    wrapped = Tracer.make({
      span: (name, parent, context, links, startTime, kind, options) =>
        redacting(inner.span(name, parent, context, links, startTime, kind, options)),
      context: (f, fiber) => inner.context(f, fiber)
    })
    wrappers.set(inner, wrapped)
    wrappers.set(wrapped, wrapped)
  }
  return wrapped
}

/**
 * `client`, with the spans of its requests made by the current tracer
 * wrapped in `tracer`: `url.full`, `url.query` and `Location` headers carry
 * no query value.
 *
 * @since 0.3.0
 * @category tracing
 */
export const httpClient = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  RedactedHttpClient.withTracer(client, tracer)
