import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as ApprovalPolicy from "@mcp-effect/core/ApprovalPolicy"
import * as Approver from "@mcp-effect/core/Approver"
import * as ToolCallLog from "@mcp-effect/core/ToolCallLog"
import type { Authorizer, TokenStore } from "@mcp-effect/oauth"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as ServerConfig from "../ServerConfig.js"
import * as ServerRegistry from "../ServerRegistry.js"
import type * as TransportFactory from "../TransportFactory.js"

/** What both hubs accept. */
export interface Options<E = never> extends Omit<ServerRegistry.Options, "servers" | "errors"> {
  /** Where configs, "approve always" decisions and history are kept. */
  readonly storage?: Layer.Layer<KeyValueStore.KeyValueStore, E> | undefined
  /** The approval policy. Default `{ mode: "auto" }`. */
  readonly approval?: ApprovalPolicy.Options | undefined
  /** How a person is asked when the policy says so. Without it, asking means denying. */
  readonly approver?: Approver.Service["ask"] | undefined
  /** Call history options (retention). */
  readonly history?: ToolCallLog.Options | undefined
  /** OAuth token storage for `oauth2` servers. Default: in memory. */
  readonly tokens?: Layer.Layer<TokenStore.TokenStore, E> | undefined
  /** How a person signs in to an `oauth2` server. Default: nobody can, the server ends in `NeedsAuth`. */
  readonly authorizer?: Layer.Layer<Authorizer.Authorizer, E> | undefined
}

/** The services a hub provides. */
export type Services =
  | ServerRegistry.ServerRegistry
  | ApprovalPolicy.ApprovalPolicy
  | ToolCallLog.ToolCallLog
  | KeyValueStore.KeyValueStore

/** The registry over the loaded servers, the policy and the history on one storage, the factory given. */
export const layer = <E, E2>(
  options: Options<E>,
  servers: Effect.Effect<ServerConfig.Parsed, E2>,
  factory: Layer.Layer<TransportFactory.TransportFactory>,
  memory: Layer.Layer<KeyValueStore.KeyValueStore, E>
): Layer.Layer<Services, E | E2 | ServerRegistry.RegistryError> => {
  const { approval, approver, authorizer, history, storage, tokens, ...registryOptions } = options
  const services = Layer.mergeAll(
    ApprovalPolicy.layer(approval ?? { mode: "auto" }),
    ToolCallLog.layer(history),
    approver === undefined ? Layer.empty : Approver.layer(approver)
  )
  const transports = factory.pipe(
    Layer.provide(Layer.mergeAll(tokens ?? Layer.empty, authorizer ?? Layer.empty))
  )
  const registry = Layer.unwrapEffect(
    Effect.map(servers, (parsed) => ServerRegistry.layerStored({ ...registryOptions, ...parsed }))
  ).pipe(Layer.provide(transports))
  return registry.pipe(Layer.provideMerge(services), Layer.provideMerge(storage ?? memory))
}
