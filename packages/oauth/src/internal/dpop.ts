/**
 * DPoP (RFC 9449): one key pair per OAuth client Layer, a proof JWT on every
 * token request and every request to the MCP server, server-supplied nonces
 * remembered per origin, and the key kept beside the tokens it is bound to.
 *
 * Keys are WebCrypto keys made and read with `jose`, so the same code runs in
 * Node and in browsers. The private key is extractable: it is stored (sealed,
 * with the tokens) as a JWK, so a restarted client signs with the key its
 * tokens are bound to.
 *
 * @internal
 */
import { HttpAuth } from "@mcp-effect/transport-http"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as jose from "jose"
import type * as oauth from "oauth4webapi"
import type * as Dpop from "../Dpop.js"
import { OAuthError } from "../OAuthError.js"
import type * as TokenStore from "../TokenStore.js"

/** A key pair ready to sign, with the stored form it was read from. */
interface KeyPair {
  readonly algorithm: string
  readonly privateKey: CryptoKey
  readonly publicJwk: jose.JWK
  readonly stored: TokenStore.DpopKey
}

/** Origins whose last nonce is remembered; the oldest is forgotten past this. */
const maxNonces = 32

/** @internal the DPoP state of one OAuth client Layer */
export interface Session {
  readonly algorithm: Dpop.Algorithm
  /** The key of the tokens in use, or the one made for the first token request. */
  key: KeyPair | undefined
  /** The last `DPoP-Nonce` of each origin (authorization server, MCP server), at most `maxNonces`. */
  readonly nonces: Map<string, string>
}

/** @internal the session of a Layer's `dpop` option; `undefined` when DPoP is off */
export const fromOptions = (options: boolean | Dpop.Options | undefined): Session | undefined =>
  options === undefined || options === false
    ? undefined
    : { algorithm: (options === true ? undefined : options.algorithm) ?? "ES256", key: undefined, nonces: new Map() }

/** @internal whether a token type names a DPoP-bound token (the comparison is case-insensitive) */
export const isDpopType = (tokenType: string): boolean => tokenType.toLowerCase() === "dpop"

const configuration = (message: string) => new OAuthError({ reason: "Configuration", message })

/** The public members of each key type (RFC 7638 §3.2): never a private one. */
const publicMembers: Readonly<Record<string, ReadonlyArray<keyof jose.JWK>>> = {
  EC: ["crv", "x", "y"],
  OKP: ["crv", "x"],
  RSA: ["e", "n"]
}

const publicPart = (jwk: jose.JWK): jose.JWK => {
  const part: Record<string, unknown> = { kty: jwk.kty }
  for (const member of publicMembers[jwk.kty ?? ""] ?? []) {
    if (jwk[member] !== undefined) part[member] = jwk[member]
  }
  return part as jose.JWK
}

const generate = (algorithm: Dpop.Algorithm): Effect.Effect<KeyPair, OAuthError> =>
  Effect.tryPromise({
    try: async () => {
      const { privateKey, publicKey } = await jose.generateKeyPair(algorithm, { extractable: true })
      const privateJwk = { ...(await jose.exportJWK(privateKey)), alg: algorithm }
      const publicJwk = publicPart(await jose.exportJWK(publicKey))
      const thumbprint = await jose.calculateJwkThumbprint(publicJwk, "sha256")
      return {
        algorithm,
        privateKey,
        publicJwk,
        stored: { privateJwk: Redacted.make(JSON.stringify(privateJwk)), thumbprint }
      }
    },
    catch: (cause) =>
      configuration(
        `a DPoP key (${algorithm}) could not be generated: ${cause instanceof Error ? cause.message : String(cause)}`
      )
  })

/**
 * A stored key, when it is whole: a private JWK with its `alg`, whose public
 * key has the stored thumbprint and whose private key belongs to it.
 */
const load = (stored: TokenStore.DpopKey): Effect.Effect<Option.Option<KeyPair>> =>
  Effect.promise(async () => {
    try {
      const jwk = JSON.parse(Redacted.value(stored.privateJwk)) as jose.JWK
      if (typeof jwk.alg !== "string" || jwk.d === undefined) return Option.none()
      const publicJwk = publicPart(jwk)
      if ((await jose.calculateJwkThumbprint(publicJwk, "sha256")) !== stored.thumbprint) return Option.none()
      // WebCrypto refuses a private key that does not match its public members
      const privateKey = await jose.importJWK(jwk, jwk.alg)
      if (!(privateKey instanceof CryptoKey)) return Option.none()
      return Option.some({ algorithm: jwk.alg, privateKey, publicJwk, stored })
    } catch {
      return Option.none()
    }
  })

const currentKey = (session: Session): Effect.Effect<KeyPair, OAuthError> =>
  session.key === undefined
    ? Effect.tap(generate(session.algorithm), (key) => Effect.sync(() => (session.key = key)))
    : Effect.succeed(session.key)

/** `htu`: the request URL without query and fragment (RFC 9449 §4.2). */
const htu = (url: URL) => `${url.origin}${url.pathname}`

/** @internal remembers the `DPoP-Nonce` an origin sent */
export const rememberNonce = (session: Session, url: string | URL, nonce: string): void => {
  const origin = new URL(url).origin
  session.nonces.delete(origin)
  if (session.nonces.size >= maxNonces) session.nonces.delete(session.nonces.keys().next().value!)
  session.nonces.set(origin, nonce)
}

const accessTokenHash = (token: string) =>
  Effect.promise(async () =>
    jose.base64url.encode(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token))))
  )

/** A fresh proof (new `jti`, `iat` from `Clock`) for one request, with the origin's nonce when one is known. */
const proof = (
  session: Session,
  key: KeyPair,
  method: string,
  url: URL,
  accessToken: string | undefined
): Effect.Effect<string, OAuthError> =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const nonce = session.nonces.get(url.origin)
    const claims: jose.JWTPayload = {
      jti: crypto.randomUUID(),
      htm: method,
      htu: htu(url),
      iat: Math.floor(now / 1000),
      ...(accessToken === undefined ? {} : { ath: yield* accessTokenHash(accessToken) }),
      ...(nonce === undefined ? {} : { nonce })
    }
    return yield* Effect.tryPromise({
      try: () =>
        new jose.SignJWT(claims)
          .setProtectedHeader({ alg: key.algorithm, typ: "dpop+jwt", jwk: key.publicJwk })
          .sign(key.privateKey),
      catch: () => configuration("the DPoP proof could not be signed")
    })
  })

/**
 * @internal sends a token request (to `tokenEndpoint`, already checked) with a proof
 * (`DPoP` header) when DPoP is on; a `use_dpop_nonce` refusal that brought a new nonce is
 * sent once more with it
 */
export const proven = <A>(
  session: Session | undefined,
  as: oauth.AuthorizationServer,
  tokenEndpoint: URL,
  send: (headers: Record<string, string>) => Effect.Effect<A, OAuthError>
): Effect.Effect<A, OAuthError> => {
  if (session === undefined) return send({})
  const supported = as.dpop_signing_alg_values_supported
  if (supported !== undefined && !supported.includes(session.algorithm)) {
    return Effect.fail(configuration(
      `the authorization server accepts DPoP proofs signed with ${supported.join(", ") || "nothing"}, not ${session.algorithm}`
    ))
  }
  const once = Effect.gen(function*() {
    const key = yield* currentKey(session)
    return yield* send({ dpop: yield* proof(session, key, "POST", tokenEndpoint, undefined) })
  })
  return Effect.suspend(() => {
    const before = session.nonces.get(tokenEndpoint.origin)
    return Effect.catchIf(
      once,
      (error) => error.error === "use_dpop_nonce" && session.nonces.get(tokenEndpoint.origin) !== before,
      () => once
    )
  })
}

/**
 * @internal the headers presenting `tokens` on one request: `Bearer`, or `DPoP` with a proof
 * bound to the token (`ath`) for a DPoP-bound token
 */
export const present = (
  session: Session | undefined,
  tokens: TokenStore.Tokens,
  request: HttpAuth.RequestInfo
): Effect.Effect<Record<string, string>, OAuthError> => {
  const token = Redacted.value(tokens.accessToken)
  if (!isDpopType(tokens.tokenType)) return Effect.succeed({ authorization: `Bearer ${token}` })
  const key = session?.key
  const bound = tokens.dpopKey?.thumbprint
  if (session === undefined || key === undefined || (bound !== undefined && bound !== key.stored.thumbprint)) {
    return Effect.fail(configuration("the stored token is DPoP-bound, but its key is not in use (the dpop option is off)"))
  }
  return Effect.map(
    proof(session, key, request.method, new URL(request.url), token),
    (signed) => ({ authorization: `DPoP ${token}`, dpop: signed })
  )
}

/**
 * @internal a `401` whose challenge says `use_dpop_nonce`: with a `DPoP-Nonce` it is sent again
 * (`"retry"`; the transport allows this once per request, and parallel requests challenged with
 * the same nonce all retry), without one it fails; `undefined` for any other challenge
 */
export const onNonceChallenge = (
  session: Session | undefined,
  info: HttpAuth.ChallengeInfo
): HttpAuth.Decision | undefined => {
  if (session === undefined || !HttpAuth.isNonceChallenge(info)) return undefined
  if (info.nonce === undefined) return "fail"
  rememberNonce(session, info.url, info.nonce)
  return "retry"
}

/**
 * @internal the token store as the flows see it with DPoP on: a DPoP-bound token is written
 * with the key it is bound to, and read only with that key, whole (else it reads as absent and
 * a new grant replaces it); reading it puts its key in use
 */
export const bindStore = (store: TokenStore.Service, session: Session): TokenStore.Service => ({
  ...store,
  setTokens: (key, tokens) =>
    store.setTokens(
      key,
      isDpopType(tokens.tokenType) && tokens.dpopKey === undefined && session.key !== undefined
        ? { ...tokens, dpopKey: session.key.stored }
        : tokens
    ),
  getTokens: (key) =>
    Effect.flatMap(store.getTokens(key), (found) => {
      if (Option.isNone(found) || !isDpopType(found.value.tokenType)) return Effect.succeed(found)
      const stored = found.value.dpopKey
      if (stored === undefined) return Effect.succeedNone
      if (session.key !== undefined && sameKey(session.key.stored, stored)) return Effect.succeed(found)
      return Effect.map(load(stored), Option.flatMap((pair) => {
        session.key = pair
        return found
      }))
    })
})

const sameKey = (a: TokenStore.DpopKey, b: TokenStore.DpopKey) =>
  a.thumbprint === b.thumbprint && Redacted.value(a.privateJwk) === Redacted.value(b.privateJwk)
