/**
 * Grants without a person in the loop: client credentials (client secret or
 * private-key JWT, RFC 7523), a workload's own JWT (the JWT-bearer grant,
 * RFC 7523, for workload identity federation) and cross-app access (enterprise-managed
 * authorization: an ID token exchanged at the identity provider for an
 * ID-JAG, RFC 8693, then redeemed with the JWT-bearer grant, RFC 7523).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as oauth from "oauth4webapi"
import * as Discovery from "../Discovery.js"
import { OAuthError } from "../OAuthError.js"
import * as Scopes from "../Scopes.js"
import type * as Engine from "./engine.js"
import * as Grants from "./grants.js"
import * as Identity from "./identity.js"

const identity = (flow: Engine.Flow) => Identity.requireConfigured(flow.discovered.authorizationServer, flow.client)

/**
 * A grant with no person in it: the configured client asks the token endpoint
 * with `request` (given the client and the formatted scope) and keeps what it answers.
 */
const headless = (
  request: (
    flow: Engine.Flow,
    client: Effect.Effect.Success<ReturnType<typeof identity>>,
    scope: string | undefined
  ) => ReturnType<typeof Grants.clientCredentials>
): Engine.Grant => ({
  interactive: false,
  offlineAccess: false,
  identity,
  obtain: (flow, scopes) =>
    Effect.gen(function*() {
      const scope = Scopes.format(scopes)
      const client = yield* identity(flow)
      const response = yield* request(flow, client, scope)
      return yield* Grants.toTokens(response, scope)
    })
})

/** @internal */
export const clientCredentials: Engine.Grant = headless((flow, client, scope) =>
  Grants.clientCredentials(flow.http, flow.discovered.authorizationServer, client, flow.key.resource, scope)
)

/**
 * @internal the JWT-bearer grant with a JWT the app obtains for its workload (a
 * projected service-account token, a CI job's OIDC token), asked for anew for each
 * grant. A refusal is final: no other grant is tried and nothing is sent again.
 */
export const jwtBearer = (assertion: Effect.Effect<Redacted.Redacted<string>, OAuthError>): Engine.Grant =>
  headless((flow, client, scope) =>
    Effect.flatMap(
      assertion,
      (jwt) =>
        Grants.generic(flow.http, flow.discovered.authorizationServer, client, Grants.jwtBearerGrant, {
          assertion: Redacted.value(jwt),
          resource: flow.key.resource,
          ...(scope === undefined ? {} : { scope })
        })
    )
  )

/** @internal */
export interface IdentityProvider {
  readonly issuer?: string | undefined
  readonly tokenEndpoint?: string | undefined
  readonly clientId: string
  readonly clientSecret?: Redacted.Redacted<string> | undefined
}

const identityProviderMetadata = (
  flow: Engine.Flow,
  idp: IdentityProvider
): Effect.Effect<oauth.AuthorizationServer, OAuthError> => {
  if (idp.tokenEndpoint !== undefined) {
    return Effect.succeed({
      issuer: idp.issuer ?? new URL(idp.tokenEndpoint).origin,
      token_endpoint: idp.tokenEndpoint
    })
  }
  if (idp.issuer !== undefined) return Discovery.metadataFor(flow.http, idp.issuer)
  return Effect.fail(
    new OAuthError({ reason: "Configuration", message: "the identity provider needs a token endpoint or an issuer" })
  )
}

/** @internal */
export const crossAppAccess = (
  idp: IdentityProvider,
  idToken: Effect.Effect<Redacted.Redacted<string>, OAuthError>
): Engine.Grant => ({
  interactive: false,
  offlineAccess: false,
  identity,
  obtain: (flow, scopes) =>
    Effect.gen(function*() {
      const as = flow.discovered.authorizationServer
      const scope = Scopes.format(scopes)
      const scoped: Record<string, string> = scope === undefined ? {} : { scope }
      const idpMetadata = yield* identityProviderMetadata(flow, idp)
      const idpClient: Identity.Identity = {
        client: { client_id: idp.clientId },
        auth: yield* Identity.clientAuth(idpMetadata, idp.clientSecret === undefined ? "none" : "client_secret_post", {
          secret: idp.clientSecret
        }),
        source: "preregistered"
      }
      const subject = yield* idToken
      const exchanged = yield* Grants.generic(flow.http, idpMetadata, idpClient, Grants.tokenExchangeGrant, {
        requested_token_type: Grants.idJagTokenType,
        audience: as.issuer,
        resource: flow.key.resource,
        subject_token: Redacted.value(subject),
        subject_token_type: Grants.idTokenType,
        ...scoped
      })
      if (exchanged.issued_token_type !== Grants.idJagTokenType) {
        return yield* new OAuthError({
          reason: "Token",
          message: `the identity provider issued ${String(exchanged.issued_token_type)}, not an ID-JAG`
        })
      }
      const client = yield* identity(flow)
      const response = yield* Grants.generic(flow.http, as, client, Grants.jwtBearerGrant, {
        assertion: exchanged.access_token,
        resource: flow.key.resource,
        ...scoped
      })
      return yield* Grants.toTokens(response, scope)
    })
})
