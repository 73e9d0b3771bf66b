/**
 * The host side of the MCP Apps bridge: JSON-RPC 2.0 over `postMessage`
 * between the host page and the app's iframe. Independent of the DOM (it is
 * given a `post` function and fed the messages the iframe sent), so it is
 * tested without a browser.
 */
import type * as McpSchema from "@mcp-effect/core/McpSchema"

/** The bridge protocol version this host speaks (ext-apps 2.x). */
export const protocolVersion = "2026-01-26"

/** What the host tells the app about itself; sent whole at `ui/initialize`, changed fields later. */
export interface HostContext {
  readonly theme?: "light" | "dark" | undefined
  readonly displayMode?: "inline" | undefined
  readonly availableDisplayModes?: ReadonlyArray<"inline"> | undefined
  readonly platform?: "web" | undefined
  readonly locale?: string | undefined
  readonly toolInfo?: { readonly tool: McpSchema.Tool } | undefined
  readonly containerDimensions?: { readonly maxHeight?: number; readonly width?: number } | undefined
}

/** A failure to answer the app with: a JSON-RPC error. */
export interface BridgeError {
  readonly code: number
  readonly message: string
}

export interface Options {
  /** Posts a message into the iframe. */
  readonly post: (message: unknown) => void
  readonly hostInfo: { readonly name: string; readonly version: string }
  readonly context: HostContext
  /** A `tools/call` from the app; rejects with a `BridgeError` to answer an error. */
  readonly callTool: (name: string, args: Record<string, unknown>) => Promise<McpSchema.CallToolResult>
  readonly onSize?:
    | ((size: { readonly width?: number | undefined; readonly height?: number | undefined }) => void)
    | undefined
  readonly openLink?: ((url: string) => Promise<void>) | undefined
  readonly message?: ((params: Record<string, unknown>) => Promise<void>) | undefined
  readonly onRequestTeardown?: (() => void) | undefined
  readonly onLog?: ((params: Record<string, unknown>) => void) | undefined
  /** Called once the app sent `ui/notifications/initialized`. */
  readonly onInitialized?: (() => void) | undefined
}

export interface Bridge {
  /** Feeds a message the iframe posted. */
  readonly receive: (data: unknown) => void
  /** Sends the tool's arguments (held until the app is initialised). */
  readonly toolInput: (args: Record<string, unknown>) => void
  /** Sends the tool's result (held until the app is initialised). */
  readonly toolResult: (result: McpSchema.CallToolResult) => void
  readonly toolCancelled: (reason?: string) => void
  /** Tells the app that part of the host context changed (the theme, say). */
  readonly contextChanged: (changes: Partial<HostContext>) => void
  /** Asks the app to tear down; resolves on its answer or after `timeoutMs`. */
  readonly teardown: (timeoutMs?: number) => Promise<void>
  /** Refuses every later message (answers pending calls no more). */
  readonly close: () => void
}

type Id = string | number

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const methodNotFound = (method: string): BridgeError => ({
  code: -32601,
  message: `this host does not support ${method.slice(0, 100)}`
})

export const isBridgeError = (u: unknown): u is BridgeError =>
  isRecord(u) && typeof u["code"] === "number" && typeof u["message"] === "string"

export const make = (options: Options): Bridge => {
  let context: HostContext = options.context
  let initialized = false
  let closed = false
  /** Notifications held until the app is initialised, in order. */
  const held: Array<{ readonly method: string; readonly params: unknown }> = []
  let nextId = 1
  const pending = new Map<Id, (response: Record<string, unknown>) => void>()

  const send = (message: Record<string, unknown>) => {
    if (!closed) options.post({ jsonrpc: "2.0", ...message })
  }
  const notify = (method: string, params: unknown) => {
    if (!initialized) held.push({ method, params })
    else send({ method, params })
  }
  const answer = (id: Id, outcome: Promise<unknown>) =>
    outcome.then(
      (result) => send({ id, result }),
      (error: unknown) =>
        send({
          id,
          error: isBridgeError(error) ? { code: error.code, message: error.message } : {
            code: -32603,
            message: error instanceof Error ? error.message : "the host could not answer"
          }
        })
    )

  const capabilities = () => ({
    serverTools: {},
    logging: {},
    ...(options.openLink !== undefined ? { openLinks: {} } : {}),
    ...(options.message !== undefined ? { message: { text: {} } } : {})
  })

  const request = (method: string, params: Record<string, unknown>): Promise<unknown> => {
    switch (method) {
      case "ui/initialize":
        return Promise.resolve({
          protocolVersion,
          hostInfo: options.hostInfo,
          hostCapabilities: capabilities(),
          hostContext: context
        })
      case "tools/call": {
        const name = params["name"]
        const args = params["arguments"]
        if (typeof name !== "string") return Promise.reject({ code: -32602, message: "tools/call needs a tool name" })
        if (args !== undefined && !isRecord(args)) {
          return Promise.reject({ code: -32602, message: "arguments must be an object" })
        }
        return options.callTool(name, args ?? {})
      }
      case "ui/open-link": {
        const url = params["url"]
        if (options.openLink === undefined) return Promise.reject(methodNotFound(method))
        if (typeof url !== "string" || !/^https?:\/\//i.test(url)) {
          return Promise.reject({ code: -32602, message: "only http(s) links are opened" })
        }
        return options.openLink(url).then(() => ({}))
      }
      case "ui/message":
        return options.message === undefined
          ? Promise.reject(methodNotFound(method))
          : options.message(params).then(() => ({}))
      case "ui/request-display-mode":
        return Promise.resolve({ mode: "inline" })
      case "ping":
        return Promise.resolve({})
      default:
        return Promise.reject(methodNotFound(method))
    }
  }

  const notification = (method: string, params: Record<string, unknown>) => {
    switch (method) {
      case "ui/notifications/initialized": {
        if (initialized) return
        initialized = true
        for (const { method, params } of held.splice(0)) send({ method, params })
        return options.onInitialized?.()
      }
      case "ui/notifications/size-changed": {
        const size = (key: string) => {
          const value = params[key]
          return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined
        }
        return options.onSize?.({ width: size("width"), height: size("height") })
      }
      case "ui/notifications/request-teardown":
        return options.onRequestTeardown?.()
      case "notifications/message":
        return options.onLog?.(params)
      default:
        return
    }
  }

  return {
    receive: (data) => {
      if (closed || !isRecord(data) || data["jsonrpc"] !== "2.0") return
      const id = data["id"]
      const method = data["method"]
      const params = isRecord(data["params"]) ? data["params"] : {}
      if (typeof method === "string") {
        if (typeof id === "string" || typeof id === "number") void answer(id, request(method, params))
        else notification(method, params)
        return
      }
      // an answer to one of the host's own requests
      if ((typeof id === "string" || typeof id === "number") && pending.has(id)) {
        const settle = pending.get(id)!
        pending.delete(id)
        settle(data)
      }
    },
    toolInput: (args) => notify("ui/notifications/tool-input", { arguments: args }),
    toolResult: (result) => notify("ui/notifications/tool-result", result),
    toolCancelled: (reason) => notify("ui/notifications/tool-cancelled", reason === undefined ? {} : { reason }),
    contextChanged: (changes) => {
      context = { ...context, ...changes }
      if (initialized) send({ method: "ui/notifications/host-context-changed", params: changes })
    },
    teardown: (timeoutMs = 1000) =>
      new Promise<void>((resolve) => {
        if (closed || !initialized) return resolve()
        const id = `host-${nextId++}`
        const timer = setTimeout(() => {
          pending.delete(id)
          resolve()
        }, timeoutMs)
        pending.set(id, () => {
          clearTimeout(timer)
          resolve()
        })
        send({ id, method: "ui/resource-teardown", params: {} })
      }),
    close: () => {
      closed = true
      pending.clear()
    }
  }
}

/**
 * The document to put in the iframe: the app's HTML with the policy as a
 * `<meta>` first of all (after a doctype, so standards mode stays), so no
 * script of the document runs before it.
 */
export const withPolicy = (html: string, policy: string): string => {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, "&quot;")}">`
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html)
  return doctype === null ? meta + html : doctype[0] + meta + html.slice(doctype[0].length)
}
