// The hub's errors, defined below the public modules that export them (`ServerConfig`,
// `ServerRegistry`, `AppHost`), so that their internals build them without importing those modules back.
import * as Schema from "effect/Schema"

/** Re-exported by its public module, which documents it. */
export class ServerConfigError extends Schema.TaggedError<ServerConfigError>("@mcp-effect/hub/ServerConfigError")(
  "ServerConfigError",
  {
    server: Schema.String,
    key: Schema.String,
    reason: Schema.String
  }
) {
  override get message(): string {
    return `server "${this.server}": ${this.key}: ${this.reason}`
  }
}

/** Re-exported by its public module, which documents it. */
export class ConfigFileError extends Schema.TaggedError<ConfigFileError>("@mcp-effect/hub/ConfigFileError")(
  "ConfigFileError",
  {
    path: Schema.optional(Schema.String),
    reason: Schema.String
  }
) {
  override get message(): string {
    return this.path === undefined ? this.reason : `${this.path}: ${this.reason}`
  }
}

/** Re-exported by its public module, which documents it. */
export class RegistryError extends Schema.TaggedError<RegistryError>("@mcp-effect/hub/RegistryError")(
  "RegistryError",
  {
    reason: Schema.Literal(
      "UnknownServer",
      "UnknownTool",
      "DuplicateServer",
      "Unavailable",
      "Storage",
      "Timeout",
      "Conflict"
    ),
    server: Schema.optional(Schema.String),
    message: Schema.String,
    cause: Schema.optional(Schema.Defect)
  }
) {}

/** Re-exported by its public module, which documents it. */
export class UnknownTool extends Schema.TaggedError<UnknownTool>("@mcp-effect/hub/UnknownTool")("UnknownTool", {
  name: Schema.String
}) {
  override get message(): string {
    return `no tool named ${JSON.stringify(this.name)} in the registry, nothing was sent`
  }
}

/** Re-exported by `AppHost`, which documents it. */
export class UiChanged extends Schema.TaggedError<UiChanged>("@mcp-effect/hub/UiChanged")("UiChanged", {
  server: Schema.String,
  uri: Schema.String,
  /** The digest of the UI as now served: what `approveUi` pins. */
  digest: Schema.String
}) {
  override get message(): string {
    return `the UI ${this.uri} of server "${this.server}" changed since it was approved; approve it to run it`
  }
}
