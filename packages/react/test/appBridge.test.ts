// The host side of the MCP Apps bridge, fed the messages an app's iframe would post.
import { describe, expect, it } from "vitest"
import * as Bridge from "../src/internal/appBridge.js"

const setup = (callTool: Bridge.Options["callTool"] = () => Promise.resolve({ content: [] })) => {
  const posted: Array<Record<string, unknown>> = []
  const sizes: Array<unknown> = []
  const bridge = Bridge.make({
    post: (message) => posted.push(message as Record<string, unknown>),
    hostInfo: { name: "test-host", version: "1" },
    context: { theme: "dark", toolInfo: { tool: { name: "get-time", inputSchema: { type: "object" } } } },
    callTool,
    onSize: (size) => sizes.push(size)
  })
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
  return { bridge, posted, sizes, settle }
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "ui/initialize",
  params: { protocolVersion: Bridge.protocolVersion }
}
const initialized = { jsonrpc: "2.0", method: "ui/notifications/initialized" }

describe("the app bridge (host side)", () => {
  it("answers ui/initialize with the host's info, capabilities and context", async () => {
    const { bridge, posted, settle } = setup()
    bridge.receive(initialize)
    await settle()
    expect(posted[0]).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      result: {
        protocolVersion: Bridge.protocolVersion,
        hostInfo: { name: "test-host" },
        hostCapabilities: { serverTools: {} },
        hostContext: { theme: "dark", toolInfo: { tool: { name: "get-time" } } }
      }
    })
  })

  it("holds the tool input and result until the app is initialised, then sends them in order", async () => {
    const { bridge, posted, settle } = setup()
    bridge.toolInput({ city: "Oslo" })
    bridge.toolResult({ content: [{ type: "text", text: "12:00" }] })
    bridge.receive(initialize)
    await settle()
    expect(posted.map((m) => m["method"] ?? "answer")).toEqual(["answer"])
    bridge.receive(initialized)
    expect(posted.slice(1)).toEqual([
      { jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: { city: "Oslo" } } },
      { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { content: [{ type: "text", text: "12:00" }] } }
    ])
  })

  it("routes tools/call to the host and answers a refusal as a JSON-RPC error", async () => {
    const calls: Array<string> = []
    const { bridge, posted, settle } = setup((name) => {
      calls.push(name)
      return name === "denied" ?
        Promise.reject({ code: -32000, message: "ApprovalDenied: no" }) :
        Promise.resolve({ content: [{ type: "text", text: "ok" }] })
    })
    bridge.receive({ jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "fine", arguments: {} } })
    bridge.receive({ jsonrpc: "2.0", id: "b", method: "tools/call", params: { name: "denied" } })
    bridge.receive({ jsonrpc: "2.0", id: "c", method: "tools/call", params: { name: 42 } })
    await settle()
    expect(calls).toEqual(["fine", "denied"])
    expect(posted).toEqual(expect.arrayContaining([
      { jsonrpc: "2.0", id: "a", result: { content: [{ type: "text", text: "ok" }] } },
      { jsonrpc: "2.0", id: "b", error: { code: -32000, message: "ApprovalDenied: no" } },
      { jsonrpc: "2.0", id: "c", error: { code: -32602, message: "tools/call needs a tool name" } }
    ]))
  })

  it("refuses methods it does not offer and ignores what is not JSON-RPC", async () => {
    const { bridge, posted, settle } = setup()
    bridge.receive({ jsonrpc: "2.0", id: 7, method: "ui/open-link", params: { url: "https://example.com" } })
    bridge.receive({ jsonrpc: "2.0", id: 8, method: "sampling/createMessage", params: {} })
    bridge.receive("hello")
    bridge.receive({ id: 9, method: "ping" })
    await settle()
    expect(posted.map((m) => [m["id"], (m["error"] as { code: number } | undefined)?.code])).toEqual([[7, -32601], [
      8,
      -32601
    ]])
  })

  it("follows size changes and tells the app when the theme changes", async () => {
    const { bridge, posted, settle, sizes } = setup()
    bridge.receive(initialize)
    await settle()
    bridge.receive(initialized)
    bridge.receive({ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { width: 300, height: 120 } })
    bridge.contextChanged({ theme: "light" })
    await settle()
    expect(sizes).toEqual([{ width: 300, height: 120 }])
    expect(posted.at(-1)).toEqual({
      jsonrpc: "2.0",
      method: "ui/notifications/host-context-changed",
      params: { theme: "light" }
    })
  })

  it("asks the app to tear down and resolves on its answer", async () => {
    const { bridge, posted, settle } = setup()
    bridge.receive(initialize)
    await settle()
    bridge.receive(initialized)
    const done = bridge.teardown(10_000)
    const request = posted.at(-1)!
    expect(request["method"]).toBe("ui/resource-teardown")
    bridge.receive({ jsonrpc: "2.0", id: request["id"], result: {} })
    await done
    bridge.close()
    bridge.toolResult({ content: [] })
    expect(posted.at(-1)).toBe(request)
  })

  it("puts the policy first in the document, after its doctype", () => {
    const policy = "default-src 'none'"
    expect(Bridge.withPolicy("<!DOCTYPE html><html><script>x()</script>", policy)).toBe(
      `<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><html><script>x()</script>`
    )
    expect(Bridge.withPolicy("<script>x()</script>", policy).startsWith("<meta")).toBe(true)
  })
})
