// What NodeHub and BrowserHub take: the config file's JSON value, typed errors for a bad one, and
// a safety service provided around the hub is never dropped silently.
import "fake-indexeddb/auto"
import { describe, expect, it, vi } from "@effect/vitest"
import { ApprovalDecision, ApprovalPolicy, Approver } from "@mcp-effect/core"
import { BrowserHub } from "@mcp-effect/hub/browser"
import { NodeHub } from "@mcp-effect/hub/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as ServerConfig from "../src/ServerConfig.js"
import * as ServerRegistry from "../src/ServerRegistry.js"

const build = <E>(layer: Layer.Layer<NodeHub.Services, E>) =>
  Effect.map(Layer.build(layer), (context) => ({
    registry: context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service,
    policy: context.unsafeMap.get(ApprovalPolicy.ApprovalPolicy.key) as ApprovalPolicy.Service
  }))

describe("NodeHub.layer({ config })", () => {
  it.scoped("takes the file's JSON value as BrowserHub does", () =>
    Effect.gen(function*() {
      const { registry } = yield* build(NodeHub.layer({
        config: { mcpServers: { off: { command: "node", disabled: true }, typo: { comand: "node" } } }
      }))
      const statuses = yield* registry.servers.get
      expect(statuses.map((s) => [s.name, s._tag])).toEqual([["off", "Disabled"], ["typo", "Failed"]])
      // a misspelt key is named, with the key meant
      expect(statuses[1].lastError?.message).toContain("mcpServers.typo.comand")
      expect(statuses[1].lastError?.message).toContain("did you mean \"command\"?")
    }))

  it.scoped("a value that is no config fails the Layer with ConfigFileError", () =>
    Effect.gen(function*() {
      for (const config of [{ servers: "nope" }, { neither: {} }, [{ name: "x" }]]) {
        const error = yield* Effect.flip(build(NodeHub.layer({ config })))
        expect(error).toBeInstanceOf(ServerConfig.ConfigFileError)
      }
      const browser = yield* Effect.flip(Layer.build(BrowserHub.layer({ config: { neither: {} } })))
      expect(browser).toBeInstanceOf(ServerConfig.ConfigFileError)
    }))
})

describe("an ApprovalPolicy provided around the hub", () => {
  const outer = ApprovalPolicy.layerMemory({ mode: "always-ask" })

  it.scoped("is the hub's policy (the hub's default auto never replaces it)", () =>
    Effect.gen(function*() {
      const { policy } = yield* build(NodeHub.layer({}).pipe(Layer.provide(outer)))
      expect(policy.options.mode).toBe("always-ask")
      const browser = yield* Layer.build(BrowserHub.layer({}).pipe(Layer.provide(outer)))
      expect((browser.unsafeMap.get(ApprovalPolicy.ApprovalPolicy.key) as ApprovalPolicy.Service).options.mode)
        .toBe("always-ask")
    }))

  it.scoped("with the approval option given too, fails the Layer with a typed Conflict", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(build(NodeHub.layer({ approval: { mode: "auto" } }).pipe(Layer.provide(outer))))
      expect(error).toMatchObject({ _tag: "RegistryError", reason: "Conflict" })
      expect(error.message).toContain("ApprovalPolicy")
      const approver = Approver.layer(() => Effect.succeed(ApprovalDecision.approveOnce))
      const twice = yield* Effect.flip(
        build(
          NodeHub.layer({ approver: () => Effect.succeed(ApprovalDecision.deny("no")) }).pipe(Layer.provide(approver))
        )
      )
      expect(twice).toMatchObject({ _tag: "RegistryError", reason: "Conflict" })
    }))
})

// a stdio server with one tool the client leaves out (with a warning in the log)
const badToolServer = `
const rl = require("readline").createInterface({ input: process.stdin })
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n")
rl.on("line", (line) => {
  const m = JSON.parse(line)
  if (m.id === undefined) return
  if (m.method === "initialize") {
    send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } } })
  } else if (m.method === "tools/list") send({ id: m.id, result: { tools: [{ name: "bad", inputSchema: { type: "string" } }] } })
  else send({ id: m.id, error: { code: -32601, message: "no such method" } })
})`

describe("the library's logs in Node", () => {
  const config = { mcpServers: { bad: { command: process.execPath, args: ["-e", badToolServer] } } }
  const warned = (calls: ReadonlyArray<ReadonlyArray<unknown>>) =>
    calls.some((args) => args.some((arg) => /left out tool \\?"bad/.test(String(arg))))

  it.live("go to stderr by default, never to stdout", () =>
    Effect.gen(function*() {
      const errors = vi.spyOn(console, "error").mockImplementation(() => {})
      const logs = vi.spyOn(console, "log").mockImplementation(() => {})
      try {
        yield* Effect.scoped(Effect.flatMap(build(NodeHub.layer({ config })), ({ registry }) => registry.awaitReady()))
        expect(warned(errors.mock.calls)).toBe(true)
        expect(warned(logs.mock.calls)).toBe(false)
      } finally {
        errors.mockRestore()
        logs.mockRestore()
      }
    }), { timeout: 30_000 })

  it.live("go to a logger the app provides around the hub", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const errors = vi.spyOn(console, "error").mockImplementation(() => {})
      try {
        yield* Effect.scoped(Effect.flatMap(build(NodeHub.layer({ config })), ({ registry }) => registry.awaitReady()))
          .pipe(
            Effect.provide(
              Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void seen.push(String(message))))
            )
          )
        expect(seen.some((line) => line.includes("left out tool \"bad\""))).toBe(true)
        expect(warned(errors.mock.calls)).toBe(false)
      } finally {
        errors.mockRestore()
      }
    }), { timeout: 30_000 })
})
