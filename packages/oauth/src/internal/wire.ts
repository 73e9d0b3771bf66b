/**
 * Schemas of the documents authorization and resource servers send:
 * protected-resource metadata, authorization-server metadata, registration
 * and token responses. Every field this package reads is checked; unknown
 * fields are kept. A document that does not fit is an `OAuthError` naming
 * the offending fields (never their values: a token response holds
 * secrets).
 *
 * @internal
 */
import * as Redaction from "@mcp-effect/core/Redaction"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { OAuthError, type Reason } from "../OAuthError.js"

const Strings = Schema.mutable(Schema.Array(Schema.String))

type Json = string | number | boolean | null | Array<Json> | { [key: string]: Json }

/** Any JSON value: what an unknown field may hold. */
const Json: Schema.Schema<Json> = Schema.suspend((): Schema.Schema<Json> =>
  Schema.Union(
    Schema.String,
    Schema.Number,
    Schema.Boolean,
    Schema.Null,
    Schema.mutable(Schema.Array(Json)),
    Schema.mutable(Schema.Record({ key: Schema.String, value: Json }))
  )
)

/** An optional field: absent, never `undefined` (the shape `oauth4webapi`'s types have). */
const exact = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

const rest = Schema.Record({ key: Schema.String, value: Json })

/** @internal RFC 9728 */
export const ProtectedResourceMetadata = Schema.Struct({
  resource: Schema.String,
  authorization_servers: exact(Strings),
  scopes_supported: exact(Strings),
  bearer_methods_supported: exact(Strings),
  resource_name: exact(Schema.String)
}, rest)

/** @internal RFC 8414 / OpenID provider metadata: the fields the flows read */
export const AuthorizationServerMetadata = Schema.Struct({
  issuer: Schema.String,
  authorization_endpoint: exact(Schema.String),
  token_endpoint: exact(Schema.String),
  registration_endpoint: exact(Schema.String),
  jwks_uri: exact(Schema.String),
  revocation_endpoint: exact(Schema.String),
  introspection_endpoint: exact(Schema.String),
  scopes_supported: exact(Strings),
  response_types_supported: exact(Strings),
  grant_types_supported: exact(Strings),
  code_challenge_methods_supported: exact(Strings),
  token_endpoint_auth_methods_supported: exact(Strings),
  token_endpoint_auth_signing_alg_values_supported: exact(Strings),
  authorization_response_iss_parameter_supported: exact(Schema.Boolean),
  client_id_metadata_document_supported: exact(Schema.Boolean)
}, rest)

/** An optional field some servers send as `null`: read as absent. */
const nullable = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { nullable: true })

/** @internal RFC 7591; `client_secret_expires_at` may be missing next to a `client_secret` */
export const RegistrationResponse = Schema.Struct({
  client_id: Schema.NonEmptyString,
  client_secret: nullable(Schema.String),
  client_secret_expires_at: nullable(Schema.Number),
  registration_access_token: nullable(Schema.String),
  registration_client_uri: nullable(Schema.String),
  redirect_uris: nullable(Schema.Array(Schema.String)),
  token_endpoint_auth_method: nullable(Schema.String)
})

const ErrorBody = Schema.Struct({
  error: Schema.optional(Schema.String),
  error_description: Schema.optional(Schema.String)
})

/** @internal the `error` and `error_description` of an OAuth error body, when it has that shape */
export const decodeErrorBody = Schema.decodeUnknownOption(ErrorBody)

/** Longest error text of a server kept in a message. */
const maxRefusalLength = 300

/**
 * An OAuth error code and description as an error message shows them: the
 * server's text neutralised (no escape sequence, line break, control or
 * bidi character rewrites the line a person reads) and capped.
 *
 * @internal
 */
export const describeRefusal = (error: string, description: string | undefined): string => {
  const text = Redaction.neutralize(description === undefined ? error : `${error}: ${description}`, "line")
  return text.length > maxRefusalLength ? `${text.slice(0, maxRefusalLength - 3)}...` : text
}

/** @internal a token endpoint's answer (after `oauth4webapi`'s own checks) */
export const TokenResponse = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.String,
  expires_in: exact(Schema.Number.pipe(Schema.finite(), Schema.nonNegative())),
  refresh_token: exact(Schema.String),
  scope: exact(Schema.String),
  issued_token_type: exact(Schema.String)
})

/** @internal */
export type TokenResponse = typeof TokenResponse.Type

/**
 * Decodes a document; a mismatch is an `OAuthError` of `reason` naming the
 * paths that do not fit, without the values found there.
 *
 * @internal
 */
export const decode = <A, I>(schema: Schema.Schema<A, I>, reason: Reason, what: string) => {
  const decodeUnknown = Schema.decodeUnknown(schema)
  return (input: unknown): Effect.Effect<A, OAuthError> =>
    Effect.mapError(decodeUnknown(input), (error) => {
      const paths = ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) =>
        issue.path.length === 0 ? "the document" : issue.path.map(String).join(".")
      )
      return new OAuthError({
        reason,
        message: `${what} does not fit its schema: ${[...new Set(paths)].join(", ")} missing or of the wrong type`
      })
    })
}
