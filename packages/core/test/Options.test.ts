import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as TestServer from "../src/TestServer.js"
import { clientLayer, textResult } from "./utils.js"

const server: TestServer.Options = {
  handlers: {
    "tools/list": () => Effect.succeed({ tools: [{ name: "echo", inputSchema: { type: "object" } }] }),
    "tools/call": () => Effect.succeed(textResult("ok"))
  }
}

// what a JavaScript caller or a config file can hand over, past the types
const notADuration = "soon" as unknown as McpClient.Options["requestTimeout"]

describe("bad options are typed errors, never defects", () => {
  it.scoped("a client option that is no duration closes the session with a TransportError naming it", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.initialized)
      expect(error).toBeInstanceOf(McpError.TransportError)
      expect(error).toMatchObject({
        phase: "options",
        message: "invalid option requestTimeout: not a finite Duration or \"none\""
      })
      const state = yield* client.state.get
      expect(state._tag).toBe("Closed")
      const server = yield* TestServer.TestServer
      expect(yield* server.connections).toBe(0) // nothing was started
    }).pipe(Effect.provide(clientLayer(server, { requestTimeout: notADuration }))))

  it.scoped("a request option that is no duration fails that request only", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.callTool({ name: "echo" }, { timeout: notADuration }))
      expect(error).toMatchObject({ _tag: "TransportError", phase: "options" })
      expect((yield* client.callTool({ name: "echo" })).content).toEqual([{ type: "text", text: "ok" }])
    }).pipe(Effect.provide(clientLayer(server))))
})
