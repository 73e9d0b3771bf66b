// @mastra/mcp 2.0 `MCPServer` (2026-07-28 only), over stdio and HTTP.
import { McpSchema } from "@mcp-effect/core"
import * as Fixture from "./fixtures/launch.js"
import { interopSuite } from "./interop.js"

const server: Fixture.Fixture = { script: "mastra-server.mjs", args: [] }
const expected = { protocolVersion: McpSchema.MODERN_PROTOCOL_VERSION, serverName: "interop-mastra" }

interopSuite("Mastra MCPServer over stdio", Fixture.stdio(server), expected)
interopSuite("Mastra MCPServer over Streamable HTTP", Fixture.http(server), expected)
