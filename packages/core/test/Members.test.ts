import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as McpClient from "../src/McpClient.js"
import type * as TestServer from "../src/TestServer.js"
import { clientLayer, receivedWith, textResult } from "./utils.js"

/**
 * The services are objects whose members read the object's own fields; their
 * functions are functions of their own, so they work taken off the object
 * (destructured, or handed on as callbacks), as the members of a record of
 * closures did.
 */

const server: TestServer.Options = {
  capabilities: { tools: {}, resources: {}, prompts: {}, logging: {} },
  handlers: {
    "tools/call": ({ params }) => Effect.succeed(textResult(`called ${String(params.name)}`)),
    "resources/read": ({ params }) => Effect.succeed({ contents: [{ uri: String(params.uri), text: "x" }] }),
    "prompts/get": ({ params }) => Effect.succeed({ messages: [], description: String(params.name) }),
    "logging/setLevel": () => Effect.succeed({})
  }
}

describe("members taken off the services", () => {
  it.effect("the client's functions work destructured and as callbacks", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const { callTool, getPrompt, readResource, setLoggingLevel } = client
      expect((yield* callTool({ name: "echo" })).content).toEqual([{ type: "text", text: "called echo" }])
      expect((yield* getPrompt("greeting")).description).toBe("greeting")
      yield* setLoggingLevel("debug")
      const read = yield* Effect.forEach(["file:///a", "file:///b"], client.readResource)
      expect(read.map((result) => result.contents[0]?.uri)).toEqual(["file:///a", "file:///b"])
      expect((yield* readResource("file:///c")).contents[0]?.uri).toBe("file:///c")
    }).pipe(Effect.provide(clientLayer(server))))

  it.effect("the session's request and notify work destructured", () =>
    Effect.gen(function*() {
      const { notify, request } = (yield* McpClient.McpClient).session
      expect(yield* request("prompts/get", { name: "raw" })).toMatchObject({ description: "raw" })
      yield* notify("notifications/roots/list_changed")
      yield* receivedWith("notifications/roots/list_changed")
    }).pipe(Effect.provide(clientLayer(server))))

  it.effect("the client survives a spread: { ...client } has every member, and they work", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const copy: McpClient.Service = { ...client }
      expect(Object.keys(copy)).toEqual(expect.arrayContaining(["ping", "listTools", "callTool", "tools", "session"]))
      expect((yield* copy.listTools).map((tool) => tool.name)).toEqual(["echo"])
      expect((yield* copy.callTool({ name: "echo" })).content).toEqual([{ type: "text", text: "called echo" }])
      yield* copy.ping
      expect((yield* copy.tools.get).map((tool) => tool.name)).toEqual(["echo"])
    }).pipe(Effect.provide(clientLayer({
      ...server,
      handlers: {
        ...server.handlers,
        "tools/list": () => Effect.succeed({ tools: [{ name: "echo", inputSchema: { type: "object" } }] })
      }
    }))))
})
