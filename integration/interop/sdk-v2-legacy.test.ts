// Official SDK v2 server speaking 2025-11-25 only (a hand-wired 2025 server), over stdio and HTTP.
import * as Fixture from "./fixtures/launch.js"
import { interopSuite } from "./interop.js"

const server: Fixture.Fixture = { script: "sdk-v2-server.mjs", args: ["legacy"] }
const expected = { protocolVersion: "2025-11-25", serverName: "interop-sdk-v2" }

interopSuite("SDK v2 legacy-only over stdio", Fixture.stdio(server), expected)
interopSuite("SDK v2 legacy-only over Streamable HTTP", Fixture.http(server), expected)
