/**
 * The `HostResolver` of Node apps: `node:dns` `lookup` (the system
 * resolver, `/etc/hosts` included, as `fetch` itself resolves), every
 * address of the name. Node only: import it as
 * `@mcp-effect/oauth/NodeHostResolver` (it is not in the package's barrel,
 * which stays browser-safe).
 *
 * @since 0.2.0
 */
/// <reference types="node" />
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as dns from "node:dns"
import { HostResolver, type Service } from "./HostResolver.js"
import { OAuthError } from "./OAuthError.js"

/**
 * @since 0.2.0
 * @category constructors
 */
export const make: Service = {
  lookup: (hostname) =>
    Effect.tryPromise({
      try: () => dns.promises.lookup(hostname, { all: true, verbatim: true }),
      catch: (cause) =>
        new OAuthError({
          reason: "Http",
          message: `host ${hostname} could not be resolved (${
            typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : "lookup failed"
          })`
        })
    }).pipe(Effect.map((addresses) => addresses.map((a) => a.address)))
}

/**
 * @since 0.2.0
 * @category layers
 */
export const layer: Layer.Layer<HostResolver> = Layer.succeed(HostResolver, make)
