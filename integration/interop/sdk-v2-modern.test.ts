// Official SDK v2 server speaking 2026-07-28 only (`legacy: "reject"`), over stdio and HTTP.
import { McpSchema } from "@mcp-effect/core"
import * as Fixture from "./fixtures/launch.js"
import { interopSuite } from "./interop.js"

const server: Fixture.Fixture = { script: "sdk-v2-server.mjs", args: ["modern"] }
const expected = { protocolVersion: McpSchema.MODERN_PROTOCOL_VERSION, serverName: "interop-sdk-v2" }

interopSuite("SDK v2 modern-only over stdio", Fixture.stdio(server), expected)
interopSuite("SDK v2 modern-only over Streamable HTTP", Fixture.http(server), expected)
