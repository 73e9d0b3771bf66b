// Official SDK v2 server speaking both eras from one factory (`serveStdio`'s default; over HTTP
// the SDK's `isLegacyRequest` routing to a sessionful 2025 leg beside the strict 2026 one). The
// client negotiates the newest era both speak (2026-07-28); pinned to the legacy era, it gets
// the same features over 2025-11-25.
import { McpSchema } from "@mcp-effect/core"
import * as Fixture from "./fixtures/launch.js"
import { interopSuite } from "./interop.js"

const server: Fixture.Fixture = { script: "sdk-v2-server.mjs", args: ["both"] }
const negotiated = { protocolVersion: McpSchema.MODERN_PROTOCOL_VERSION, serverName: "interop-sdk-v2" }
const pinnedLegacy = {
  protocolVersion: McpSchema.LATEST_PROTOCOL_VERSION,
  serverName: "interop-sdk-v2",
  client: { era: "legacy" as const }
}

interopSuite("SDK v2 dual-era over stdio", Fixture.stdio(server), negotiated)
interopSuite("SDK v2 dual-era over Streamable HTTP", Fixture.http(server), negotiated)
interopSuite("SDK v2 dual-era over stdio, legacy era pinned", Fixture.stdio(server), pinnedLegacy)
interopSuite("SDK v2 dual-era over Streamable HTTP, legacy era pinned", Fixture.http(server), pinnedLegacy)

// the SDK's default dual-era posture over HTTP: `createMcpHandler` with its stateless 2025 leg
const stateless: Fixture.Fixture = { script: "sdk-v2-server.mjs", args: ["both-stateless"] }
interopSuite(
  "SDK v2 dual-era, stateless 2025 leg (createMcpHandler default), over Streamable HTTP",
  Fixture.http(stateless),
  negotiated
)
