/**
 * Everything this transport reads of `@effect/platform` beyond its public
 * API, in one place. `test/platform.test.ts` checks each assumption
 * against the installed platform, so an upgrade that changes one fails
 * there, by name, instead of slowing or breaking requests somewhere else.
 *
 * - Where a response keeps its body: the client's responses
 *   (`NodeHttpClient`'s undici and `node:http` ones, `FetchHttpClient`'s)
 *   hold what they were made from in `source` (undici's response data with
 *   its `body` Node `Readable`, the `IncomingMessage`, the web `Response`
 *   with its `body` `ReadableStream`), under wrappers that add interruption
 *   and keep the response they wrap in `original` (platform 0.97:
 *   `internal/httpClient.ts`, `InterruptibleResponse`).
 * - The registry that aborts the request of a response collected before its
 *   body was read (a `FinalizationRegistry` kept with `GlobalValue` under
 *   `@effect/platform/HttpClient/responseRegistry`): a body read here is
 *   taken out of it, as reading it through the response's own API does.
 *
 * What `RequestRefs` sets (`HttpClient.currentTracerPropagation`,
 * `Headers.currentRedactedNames`, `FetchHttpClient.RequestInit`) is public
 * API; the test checks that requests still read them from their fiber.
 *
 * @internal
 */
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/** How deep wrappers (`original`) are looked through; the platform adds one. */
const maxWrappers = 4

/** The key the platform keeps its response registry under (`effect/GlobalValue`). @internal */
export const responseRegistryKey = "@effect/platform/HttpClient/responseRegistry"

/**
 * Where a response of the platform's clients keeps what it was made from.
 *
 * @internal
 */
export interface Source {
  /** undici's response data, the `IncomingMessage`, or the web `Response`. */
  readonly source: Record<string, unknown>
  /** The wrappers' inner responses, outermost first (each one is in the registry). */
  readonly wrapped: ReadonlyArray<unknown>
}

/**
 * The `source` of a response, looked up under its wrappers; `undefined` for
 * a response that keeps none (a test double, or a platform that changed).
 *
 * @internal
 */
export const sourceOf = (response: HttpClientResponse.HttpClientResponse): Source | undefined => {
  let current: unknown = response
  const wrapped: Array<unknown> = []
  for (let depth = 0; depth < maxWrappers && isObject(current) && isObject(current.original); depth++) {
    wrapped.push(current.original)
    current = current.original
  }
  const source = isObject(current) ? current.source : undefined
  return isObject(source) ? { source, wrapped } : undefined
}

/**
 * The platform's registry that aborts the request of a response collected
 * before its body was read, when it is where this module expects it.
 *
 * @internal
 */
export const responseRegistry = (): { readonly unregister: (response: unknown) => void } | undefined => {
  const store = (globalThis as Record<string, unknown>)["effect/GlobalValue"]
  const registry = store instanceof Map ? store.get(responseRegistryKey) : undefined
  return isObject(registry) && typeof registry.unregister === "function" ?
    registry as { readonly unregister: (response: unknown) => void } :
    undefined
}

/**
 * Takes a response whose body is read here out of the registry (else each
 * finished response would be aborted when collected: an `AbortError` with
 * its stack built per request).
 *
 * @internal
 */
export const unregister = (source: Source): void => {
  if (source.wrapped.length === 0) return
  const registry = responseRegistry()
  if (registry !== undefined) { for (const inner of source.wrapped) registry.unregister(inner) }
}
