import * as Schema from "effect/Schema"
import type * as TokenStore from "../../TokenStore.js"

/** Secrets travel as `Redacted` in memory and as plain strings only inside a sealed record. */
const Secret = Schema.Redacted(Schema.String)

const TokenKey = Schema.Struct({
  resource: Schema.String,
  issuer: Schema.String,
  clientId: Schema.optional(Schema.String)
})

const DpopKey = Schema.Struct({ privateJwk: Secret, thumbprint: Schema.String })

const Tokens = Schema.Struct({
  accessToken: Secret,
  tokenType: Schema.String,
  refreshToken: Schema.optional(Secret),
  expiresAt: Schema.optional(Schema.Number),
  scope: Schema.optional(Schema.String),
  dpopKey: Schema.optional(DpopKey)
})

const ClientRegistration = Schema.Struct({
  clientId: Schema.String,
  clientSecret: Schema.optional(Secret),
  clientSecretExpiresAt: Schema.optional(Schema.Number),
  registrationAccessToken: Schema.optional(Secret),
  registrationClientUri: Schema.optional(Schema.String),
  source: Schema.Literal("preregistered", "metadata-document", "dynamic"),
  redirectUris: Schema.Array(Schema.String),
  tokenEndpointAuthMethod: Schema.optional(Schema.String)
})

const PendingAuthorization = Schema.Struct({
  state: Schema.String,
  codeVerifier: Secret,
  redirectUri: Schema.String,
  key: TokenKey,
  clientId: Schema.String,
  scope: Schema.optional(Schema.String),
  createdAt: Schema.Number,
  dpopKey: Schema.optional(DpopKey)
})

/**
 * One kind of record: how it is named in a backend and how it becomes JSON text.
 * The name is also the additional authenticated data of its ciphertext, so a
 * sealed record copied under another name does not open.
 */
export interface RecordKind<A> {
  readonly kind: "tokens" | "client" | "pending"
  readonly schema: Schema.Schema<A, string>
}

export const tokens: RecordKind<TokenStore.Tokens> = { kind: "tokens", schema: Schema.parseJson(Tokens) }

export const client: RecordKind<TokenStore.ClientRegistration> = {
  kind: "client",
  schema: Schema.parseJson(ClientRegistration)
}

export const pending: RecordKind<TokenStore.PendingAuthorization> = {
  kind: "pending",
  schema: Schema.parseJson(PendingAuthorization)
}

/**
 * Where a record lives in a backend. Its id is chosen by the caller (a
 * resource URL and issuer, an issuer, a state) and may contain any character;
 * `text` joins kind and id unambiguously (the kind never holds a colon).
 */
export interface RecordName {
  readonly kind: RecordKind<unknown>["kind"]
  readonly text: string
}

export const recordName = (kind: RecordName["kind"], id: string): RecordName => ({ kind, text: `${kind}:${id}` })

/** Tokens of a configured client id are kept apart from those of any other client (and of none). */
export const tokensId = (key: TokenStore.TokenKey): string =>
  JSON.stringify(key.clientId === undefined ? [key.resource, key.issuer] : [key.resource, key.issuer, key.clientId])
