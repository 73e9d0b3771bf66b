/**
 * The one SHA-256 of core: what keys, caches and digests hash with. It is
 * WebCrypto's (`globalThis.crypto.subtle`), which Node has and a browser
 * has in a secure context (https, or localhost) only.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Encoding from "effect/Encoding"

const utf8 = new TextEncoder()

/** Whether this platform can hash: a browser page served over plain http to another host cannot. @internal */
export const hasWebCrypto = (): boolean => globalThis.crypto?.subtle !== undefined

/**
 * The SHA-256 of `input` (text as UTF-8) in lowercase hex. Without WebCrypto it dies: callers that can
 * run in a browser page over plain http check `hasWebCrypto` first.
 *
 * @internal
 */
export const sha256Hex = (input: string | Uint8Array): Effect.Effect<string> =>
  Effect.map(
    Effect.promise(() =>
      globalThis.crypto.subtle.digest("SHA-256", typeof input === "string" ? utf8.encode(input) : new Uint8Array(input))
    ),
    (digest) => Encoding.encodeHex(new Uint8Array(digest))
  )
