/**
 * The WebSocket part of the page, bundled on its own and added to the page
 * by `browser/websocket.ts`: `window.websocketHarness.session(url)` connects
 * with `BrowserWebSocketTransport` (the page's `WebSocket`), lists the
 * tools, calls one, and returns what it saw as plain JSON.
 */
import { McpClient } from "@mcp-effect/core"
import { BrowserWebSocketTransport } from "@mcp-effect/transport-websocket/browser"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export type WebSocketOutcome =
  | {
    readonly ok: true
    readonly tools: ReadonlyArray<string>
    readonly echoed: string
    readonly protocolVersion: string
  }
  | { readonly ok: false; readonly tag: string; readonly message: string }

const session = (url: string): Promise<WebSocketOutcome> =>
  Effect.runPromise(
    Effect.scoped(Effect.gen(function*() {
      const layer = McpClient.layer({ clientInfo: { name: "browser-suite-ws", version: "1.0.0" }, prefetch: false })
        .pipe(
          Layer.provide(BrowserWebSocketTransport.layer({ url }))
        )
      const client = Context.get(yield* Layer.build(layer), McpClient.McpClient)
      const initialized = yield* client.initialized
      const tools = (yield* client.listTools).map((tool) => tool.name)
      const result = yield* client.callTool({ name: "echo", arguments: { text: "hello over a websocket" } })
      const echoed = result.content.map((c) => (c as { readonly text?: string }).text ?? "").join("")
      return { ok: true, tools, echoed, protocolVersion: initialized.protocolVersion } as WebSocketOutcome
    })).pipe(
      Effect.timeoutFail({
        duration: "15 seconds",
        onTimeout: () => ({ _tag: "PageTimeout", message: "no outcome in 15 s" })
      }),
      Effect.catchAll((error) =>
        Effect.succeed<WebSocketOutcome>({ ok: false, tag: String(error._tag), message: String(error.message) })
      ),
      Effect.catchAllDefect((defect) =>
        Effect.succeed<WebSocketOutcome>({ ok: false, tag: "Defect", message: String(defect) })
      )
    )
  )
;(globalThis as { websocketHarness?: unknown }).websocketHarness = { session }
