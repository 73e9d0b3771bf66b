import { JsonSchemaValidator, McpClient } from "@mcp-effect/core"
import * as Layer from "effect/Layer"

// a validator that checks only the top-level `required` keys (a stand-in for a real library)
const RequiredOnly = JsonSchemaValidator.layerCompiler((schema) => (value) => {
  const required = typeof schema === "object" && Array.isArray(schema.required) ? schema.required : []
  const present = typeof value === "object" && value !== null ? Object.keys(value) : []
  return required
    .filter((key): key is string => typeof key === "string" && !present.includes(key))
    .map((key) => ({ instanceLocation: "", keywordLocation: "/required", message: `missing ${key}` }))
})

export const client = McpClient.layer({ clientInfo: { name: "app", version: "1.0.0" } }).pipe(
  Layer.provide(RequiredOnly)
)
