// @vitest-environment node
import { McpClient, TestServer } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { renderToString } from "react-dom/server"
import { describe, expect, it } from "vitest"
import { Client, RuntimeProvider, ToolCall } from "../src/index.js"

const View = () => {
  const state = Client.useConnectionState()
  const tools = Client.useTools()
  const call = ToolCall.useToolCall("echo")
  return <p>{state._tag} {tools.length} {call.status} {String(call.ready)}</p>
}

describe("server rendering", () => {
  it("renders without a window and builds nothing (the runtime starts in the browser)", () => {
    expect(typeof (globalThis as { window?: unknown }).window).toBe("undefined")
    let built = 0
    const layer = McpClient.layer({ clientInfo: { name: "ssr", version: "1.0.0" } }).pipe(
      Layer.provide(TestServer.layer()),
      Layer.merge(Layer.effectDiscard(Effect.sync(() => built++)))
    )
    const html = renderToString(
      <RuntimeProvider.Provider layer={layer}>
        <View />
      </RuntimeProvider.Provider>
    )
    expect(html).toBe("<p>Connecting<!-- --> <!-- -->0<!-- --> <!-- -->Idle<!-- --> <!-- -->false</p>")
    expect(built).toBe(0)
  })
})
