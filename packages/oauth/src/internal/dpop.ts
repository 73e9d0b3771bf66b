/**
 * DPoP (RFC 9449): one key pair per OAuth client Layer, a proof JWT on every
 * token request and every request to the MCP server, server-supplied nonces
 * remembered per origin (from refusals and from successful answers), the key
 * kept beside the tokens it is bound to and beside a pending authorization
 * whose code is bound to it (`dpop_jkt`).
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
import * as Ref from "effect/Ref"
import * as SynchronizedRef from "effect/SynchronizedRef"
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
  /** The key of the tokens in use, or the one made (once) for the first token request. */
  readonly key: SynchronizedRef.SynchronizedRef<Option.Option<KeyPair>>
  /** The last `DPoP-Nonce` of each origin (authorization server, MCP server), at most `maxNonces`. */
  readonly nonces: Ref.Ref<ReadonlyMap<string, string>>
}

/** @internal the session of a Layer's `dpop` option; `undefined` when DPoP is off */
export const make = (options: boolean | Dpop.Options | undefined): Effect.Effect<Session | undefined> =>
  options === undefined || options === false
    ? Effect.succeed(undefined)
    : Effect.all({
      algorithm: Effect.succeed((options === true ? undefined : options.algorithm) ?? "ES256"),
      key: SynchronizedRef.make(Option.none<KeyPair>()),
      nonces: Ref.make<ReadonlyMap<string, string>>(new Map())
    })

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

/** The key in use; the first caller without one makes it, concurrent callers wait for that one. */
const currentKey = (session: Session): Effect.Effect<KeyPair, OAuthError> =>
  SynchronizedRef.modifyEffect(session.key, (current) =>
    Option.match(current, {
      onSome: (key) => Effect.succeed([key, current] as const),
      onNone: () => Effect.map(generate(session.algorithm), (key) => [key, Option.some(key)] as const)
    }))

/** `htu`: the request URL without query and fragment (RFC 9449 §4.2). */
const htu = (url: URL) => `${url.origin}${url.pathname}`

/** @internal remembers the `DPoP-Nonce` an origin sent, forgetting the oldest origin past `maxNonces` */
export const rememberNonce = (session: Session, url: string | URL, nonce: string): Effect.Effect<void> =>
  Ref.update(session.nonces, (nonces) => {
    const origin = new URL(url).origin
    const kept = [...nonces].filter(([o]) => o !== origin).slice(-(maxNonces - 1))
    return new Map([...kept, [origin, nonce]])
  })

const nonceOf = (session: Session, url: URL) => Effect.map(Ref.get(session.nonces), (nonces) => nonces.get(url.origin))

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
    const nonce = yield* nonceOf(session, url)
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

/** An authorization server whose `dpop_signing_alg_values_supported` lacks the key's algorithm is refused up front. */
const requireAlgorithm = (session: Session, as: oauth.AuthorizationServer): Effect.Effect<void, OAuthError> => {
  const supported = as.dpop_signing_alg_values_supported
  return supported !== undefined && !supported.includes(session.algorithm)
    ? Effect.fail(configuration(
      `the authorization server accepts DPoP proofs signed with ${
        supported.join(", ") || "nothing"
      }, not ${session.algorithm}`
    ))
    : Effect.void
}

/**
 * @internal the key an authorization code is bound to (`dpop_jkt`, RFC 9449 §10): the one in use, else a new
 * one. Its stored form is kept with the pending authorization, so the code exchange, in this page load or the
 * next, proves possession of this key.
 */
export const authorizationKey = (
  session: Session,
  as: oauth.AuthorizationServer
): Effect.Effect<TokenStore.DpopKey, OAuthError> =>
  Effect.zipRight(requireAlgorithm(session, as), Effect.map(currentKey(session), (key) => key.stored))

/**
 * @internal puts the key of a pending authorization in use before its code is exchanged (a full-page
 * redirect starts with no key, or another one); a key that cannot be read is an `Authorization` error
 */
export const adopt = (session: Session, stored: TokenStore.DpopKey): Effect.Effect<void, OAuthError> =>
  SynchronizedRef.updateEffect(session.key, (inUse) =>
    Option.isSome(inUse) && sameKey(inUse.value.stored, stored)
      ? Effect.succeed(inUse)
      : Effect.flatMap(load(stored), (loaded) =>
        Option.isSome(loaded)
          ? Effect.succeed(loaded)
          : Effect.fail(
            new OAuthError({
              reason: "Authorization",
              message: "the DPoP key of the pending authorization cannot be read"
            })
          )))

/**
 * @internal a successful answer's `DPoP-Nonce` (RFC 9449 §8.2) is remembered, so the next request carries it
 * instead of being refused with `use_dpop_nonce` first
 */
export const onResponse = (session: Session, info: HttpAuth.ResponseInfo): Effect.Effect<void> =>
  info.nonce === undefined ? Effect.void : rememberNonce(session, info.url, info.nonce)

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
  const once = Effect.gen(function*() {
    const key = yield* currentKey(session)
    return yield* send({ dpop: yield* proof(session, key, "POST", tokenEndpoint, undefined) })
  })
  return Effect.gen(function*() {
    yield* requireAlgorithm(session, as)
    const before = yield* nonceOf(session, tokenEndpoint)
    return yield* Effect.catchAll(once, (error) =>
      Effect.flatMap(
        nonceOf(session, tokenEndpoint),
        (after) => error.error === "use_dpop_nonce" && after !== before ? once : Effect.fail(error)
      ))
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
  if (session === undefined) {
    return Effect.fail(configuration("the stored token is DPoP-bound, but the dpop option is off"))
  }
  return Effect.gen(function*() {
    const key = yield* SynchronizedRef.get(session.key)
    const bound = tokens.dpopKey?.thumbprint
    if (Option.isNone(key) || (bound !== undefined && bound !== key.value.stored.thumbprint)) {
      return yield* configuration("the DPoP-bound token's key is not the one in use")
    }
    const signed = yield* proof(session, key.value, request.method, new URL(request.url), token)
    return { authorization: `DPoP ${token}`, dpop: signed }
  })
}

/**
 * @internal a `401` whose challenge says `use_dpop_nonce`: with a `DPoP-Nonce` it is sent again
 * (`"retry"`; the transport allows this once per request, and parallel requests challenged with
 * the same nonce all retry), without one it fails; `undefined` for any other challenge
 */
export const onNonceChallenge = (
  session: Session | undefined,
  info: HttpAuth.ChallengeInfo
): Effect.Effect<HttpAuth.Decision | undefined> => {
  if (session === undefined || !HttpAuth.isNonceChallenge(info)) return Effect.succeed(undefined)
  if (info.nonce === undefined) return Effect.succeed("fail")
  return Effect.as(rememberNonce(session, info.url, info.nonce), "retry")
}

/**
 * @internal the token store as the flows see it with DPoP on: a DPoP-bound token is written
 * with the key it is bound to, and read only with that key, whole (else it reads as absent and
 * a new grant replaces it); reading it puts its key in use
 */
export const bindStore = (store: TokenStore.Service, session: Session): TokenStore.Service => ({
  ...store,
  setTokens: (key, tokens) =>
    Effect.flatMap(SynchronizedRef.get(session.key), (inUse) =>
      store.setTokens(
        key,
        isDpopType(tokens.tokenType) && tokens.dpopKey === undefined && Option.isSome(inUse)
          ? { ...tokens, dpopKey: inUse.value.stored }
          : tokens
      )),
  getTokens: (key) =>
    Effect.flatMap(store.getTokens(key), (found) => {
      if (Option.isNone(found) || !isDpopType(found.value.tokenType)) return Effect.succeed(found)
      const stored = found.value.dpopKey
      if (stored === undefined) return Effect.succeedNone
      return SynchronizedRef.modifyEffect(session.key, (inUse) =>
        Option.isSome(inUse) && sameKey(inUse.value.stored, stored)
          ? Effect.succeed([found, inUse] as const)
          : Effect.map(load(stored), (loaded) =>
            Option.isSome(loaded) ? [found, loaded] as const : [Option.none(), inUse] as const))
    })
})

const sameKey = (a: TokenStore.DpopKey, b: TokenStore.DpopKey) =>
  a.thumbprint === b.thumbprint && Redacted.value(a.privateJwk) === Redacted.value(b.privateJwk)
