// Official SDK v2 server speaking both eras from one factory (`serveStdio`'s default; over HTTP
// the SDK's `isLegacyRequest` routing to a sessionful 2025 leg beside the strict 2026 one).
import * as Fixture from "./fixtures/launch.js"
import { interopSuite } from "./interop.js"

const server: Fixture.Fixture = { script: "sdk-v2-server.mjs", args: ["both"] }
const expected = { protocolVersion: "2025-11-25", serverName: "interop-sdk-v2" }

interopSuite("SDK v2 dual-era over stdio", Fixture.stdio(server), expected)
interopSuite("SDK v2 dual-era over Streamable HTTP", Fixture.http(server), expected)
