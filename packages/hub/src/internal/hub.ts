import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as ApprovalPolicy from "@mcp-effect/core/ApprovalPolicy"
import * as Approver from "@mcp-effect/core/Approver"
import * as ToolCallLog from "@mcp-effect/core/ToolCallLog"
import type { Authorizer, TokenStore } from "@mcp-effect/oauth"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as ServerConfig from "../ServerConfig.js"
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

const isParsed = (u: object): u is ServerConfig.Parsed =>
  "servers" in u && "errors" in u && Array.isArray(u.servers) && Array.isArray(u.errors)

const isConfigs = Schema.is(Schema.Array(ServerConfig.ServerConfig))

/**
 * The servers of a config given as a value: the file's JSON (`{ mcpServers }`
 * or `{ servers }`), a parsed file, or configs. Anything else is a
 * `ConfigFileError`.
 */
export const fromValue = (config: unknown): Effect.Effect<ServerConfig.Parsed, ServerConfig.ConfigFileError> => {
  if (config === undefined) return Effect.succeed({ servers: [], errors: [] })
  if (Array.isArray(config)) {
    return isConfigs(config) ?
      Effect.succeed({ servers: config, errors: [] }) :
      Effect.fail(
        new ServerConfig.ConfigFileError({
          reason: "an array of servers must hold ServerConfig values (ServerConfig.fromEntry makes them)"
        })
      )
  }
  if (typeof config === "object" && config !== null && isParsed(config)) return Effect.succeed(config)
  return Either.match(ServerConfig.fromJson(config), { onLeft: Effect.fail, onRight: Effect.succeed })
}

/**
 * A safety service both provided around the hub and given as an option:
 * one of them would be dropped, so the Layer fails instead.
 */
const conflict = (service: string, option: string) =>
  new ServerRegistry.RegistryError({
    reason: "Conflict",
    message: `an ${service} is provided around the hub and the hub's "${option}" option is given too: ` +
      `keep one (the hub never drops a safety setting silently)`
  })

/** The one given: the option, or the service provided around the hub; both fail the Layer. */
const oneOf = <I, S, E, R, ROut extends I>(
  tag: Context.Tag<I, S>,
  name: string,
  option: string,
  given: Layer.Layer<I, E, R> | undefined,
  fallback: Layer.Layer<ROut, E, R>
): Layer.Layer<ROut, E | ServerRegistry.RegistryError, R> =>
  Layer.unwrapEffect(
    Effect.map(Effect.serviceOption(tag), (outer): Layer.Layer<ROut, E | ServerRegistry.RegistryError, R> =>
      Option.match(outer, {
        onNone: () =>
          given ?? fallback,
        onSome: (service) => given === undefined ? Layer.succeed(tag, service) : Layer.fail(conflict(name, option))
      }))
  )

/** The registry over the loaded servers, the policy and the history on one storage, the factory given. */
export const layer = <E, E2>(
  options: Options<E>,
  servers: Effect.Effect<ServerConfig.Parsed, E2>,
  factory: Layer.Layer<TransportFactory.TransportFactory>,
  memory: Layer.Layer<KeyValueStore.KeyValueStore, E>
): Layer.Layer<Services, E | E2 | ServerRegistry.RegistryError> => {
  const { approval, approver, authorizer, history, storage, tokens, ...registryOptions } = options
  const services = Layer.mergeAll(
    // an ApprovalPolicy (or Approver) provided around the hub is the hub's, unless the option names one too
    oneOf(
      ApprovalPolicy.ApprovalPolicy,
      "ApprovalPolicy",
      "approval",
      approval === undefined ? undefined : ApprovalPolicy.layer(approval),
      ApprovalPolicy.layer({ mode: "auto" })
    ),
    ToolCallLog.layer(history),
    oneOf(
      Approver.Approver,
      "Approver",
      "approver",
      approver === undefined ? undefined : Approver.layer(approver),
      Layer.empty
    )
  )
  const transports = factory.pipe(
    Layer.provide(Layer.mergeAll(tokens ?? Layer.empty, authorizer ?? Layer.empty))
  )
  const registry = Layer.unwrapEffect(
    Effect.map(servers, (parsed) => ServerRegistry.layerStored({ ...registryOptions, ...parsed }))
  ).pipe(Layer.provide(transports))
  return registry.pipe(Layer.provideMerge(services), Layer.provideMerge(storage ?? memory))
}
