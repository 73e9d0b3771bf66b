/**
 * Initialization: capabilities of both sides, `initialize` parameters and
 * result.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { EmptyResult, Implementation, JsonObject, ProtocolVersion, RequestParams } from "./common.js"

const ListChanged = Schema.Struct({ listChanged: Schema.optional(Schema.Boolean) })

/**
 * What a client supports. Open-ended: unknown capabilities are kept when
 * decoding with `onExcessProperty: "preserve"`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ClientCapabilities = Schema.Struct({
  experimental: Schema.optional(Schema.Record({ key: Schema.String, value: JsonObject })),
  roots: Schema.optional(ListChanged),
  sampling: Schema.optional(Schema.Struct({
    context: Schema.optional(JsonObject),
    tools: Schema.optional(JsonObject)
  })),
  elicitation: Schema.optional(Schema.Struct({
    form: Schema.optional(JsonObject),
    url: Schema.optional(JsonObject)
  })),
  tasks: Schema.optional(Schema.Struct({
    list: Schema.optional(JsonObject),
    cancel: Schema.optional(JsonObject),
    requests: Schema.optional(Schema.Struct({
      sampling: Schema.optional(Schema.Struct({ createMessage: Schema.optional(JsonObject) })),
      elicitation: Schema.optional(Schema.Struct({ create: Schema.optional(JsonObject) }))
    }))
  })),
  /** Extensions (2026-07-28), by identifier, with their settings. */
  extensions: Schema.optional(Schema.Record({ key: Schema.String, value: JsonObject }))
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ClientCapabilities = typeof ClientCapabilities.Type

/**
 * What a server supports. Open-ended like {@link ClientCapabilities}.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ServerCapabilities = Schema.Struct({
  experimental: Schema.optional(Schema.Record({ key: Schema.String, value: JsonObject })),
  logging: Schema.optional(JsonObject),
  completions: Schema.optional(JsonObject),
  prompts: Schema.optional(ListChanged),
  resources: Schema.optional(Schema.Struct({
    subscribe: Schema.optional(Schema.Boolean),
    listChanged: Schema.optional(Schema.Boolean)
  })),
  tools: Schema.optional(ListChanged),
  tasks: Schema.optional(Schema.Struct({
    list: Schema.optional(JsonObject),
    cancel: Schema.optional(JsonObject),
    requests: Schema.optional(Schema.Struct({
      tools: Schema.optional(Schema.Struct({ call: Schema.optional(JsonObject) }))
    }))
  })),
  /** Extensions (2026-07-28), by identifier, with their settings (e.g. `io.modelcontextprotocol/tasks`). */
  extensions: Schema.optional(Schema.Record({ key: Schema.String, value: JsonObject }))
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ServerCapabilities = typeof ServerCapabilities.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const InitializeRequestParams = Schema.Struct({
  ...RequestParams.fields,
  protocolVersion: ProtocolVersion,
  capabilities: ClientCapabilities,
  clientInfo: Implementation
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type InitializeRequestParams = typeof InitializeRequestParams.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const InitializeResult = Schema.Struct({
  ...EmptyResult.fields,
  protocolVersion: ProtocolVersion,
  capabilities: ServerCapabilities,
  serverInfo: Implementation,
  instructions: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type InitializeResult = typeof InitializeResult.Type
