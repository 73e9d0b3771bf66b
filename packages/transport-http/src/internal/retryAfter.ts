import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import type { Config } from "./config.js"

/**
 * The delay a `429` / `503` answer asks for with `Retry-After`
 * (delta-seconds or an HTTP date), bounded by `maxRetryAfterMillis`;
 * `undefined` for other statuses or without a usable header.
 *
 * @internal
 */
export const delayOf = (
  config: Config,
  response: HttpClientResponse.HttpClientResponse,
  now: number
): number | undefined => {
  if (response.status !== 429 && response.status !== 503) return undefined
  const header = response.headers["retry-after"]?.trim()
  if (header === undefined || header === "") return undefined
  let millis: number
  if (/^\d+$/.test(header)) {
    millis = Number(header) * 1000
  } else {
    const date = Date.parse(header)
    if (Number.isNaN(date)) return undefined
    millis = date - now
  }
  return Math.min(Math.max(0, millis), config.maxRetryAfterMillis)
}
