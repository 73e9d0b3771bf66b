/**
 * DPoP (RFC 9449): sender-constrained access tokens. With the `dpop` option
 * of an `OAuthClient` Layer, the client holds a key pair (made with `jose`
 * through WebCrypto, in Node and in browsers) and signs a proof JWT
 * (`typ: dpop+jwt`, the public key in `jwk`, `htm`, `htu`, `iat`, a fresh
 * `jti`) for every token request — every grant, refresh included — and for
 * every request to the MCP server, where the token goes out as
 * `Authorization: DPoP <token>` with the proof in the `DPoP` header, bound to
 * the token by `ath`.
 *
 * - Nonces: a `use_dpop_nonce` answer (`400` from the token endpoint, `401`
 *   with a `DPoP` challenge from the MCP server) is answered once more with
 *   the `DPoP-Nonce` it carried; a `DPoP-Nonce` on a successful answer is
 *   taken as well (RFC 9449 §8.2); the last nonce of each origin is used from
 *   then on (at most 32 origins are remembered, the oldest is forgotten).
 * - Authorization codes: the authorization request carries `dpop_jkt` (RFC
 *   9449 §10) and the pending authorization keeps the key (sealed, like the
 *   tokens), so a full-page redirect exchanges the code with the same key.
 *   Dynamic registration asks for `dpop_bound_access_tokens`.
 * - Keys and the token store: a DPoP-bound token is stored with its key pair
 *   (the private key as a JWK, sealed like the tokens), so a restarted client
 *   keeps signing with the key its token and refresh token are bound to. A
 *   DPoP-bound token whose key is missing, unreadable, not matching its
 *   thumbprint or not a valid key pair is never sent: it reads as absent and a new
 *   grant replaces it.
 * - Opt-in: DPoP is used where the Layer asks for it, whatever the server's
 *   metadata says. An authorization server that answers with a `Bearer`
 *   token (it ignores the proof) is used with `Bearer`; one whose
 *   `dpop_signing_alg_values_supported` lacks the key's algorithm is an
 *   `OAuthError` (`Configuration`) before any request.
 *
 * @since 0.2.0
 */

/**
 * JWS algorithms of the proof key. `ES256` (the default) is the one every
 * DPoP server supports.
 *
 * @since 0.2.0
 * @category models
 */
export type Algorithm =
  | "ES256"
  | "ES384"
  | "ES512"
  | "PS256"
  | "PS384"
  | "PS512"
  | "RS256"
  | "RS384"
  | "RS512"
  | "Ed25519"

/**
 * The `dpop` option of the `OAuthClient` Layers (`true` is `{}`).
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The algorithm of the key pair made for the first token request. Default `ES256`. */
  readonly algorithm?: Algorithm | undefined
}
