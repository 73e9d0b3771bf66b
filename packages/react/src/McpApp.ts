/**
 * MCP Apps host: `<McpApp>` renders a tool's UI (its `ui://` resource) in a
 * sandboxed iframe and speaks the host side of the app's postMessage bridge;
 * `useMcpApp` loads the UI for a component of your own.
 *
 * Needs an `AppHost` (from `@mcp-effect/hub`) in the provider's Layer, over
 * the `ServerRegistry`. Everything the app does goes through it:
 *
 * - the UI is pinned on first load; when the server later serves another UI
 *   under the same URI, nothing is rendered until a person approves it (the
 *   component shows the request, or `renderChanged` does);
 * - the iframe gets `sandbox="allow-scripts"` (an opaque origin: no access to
 *   the page, its storage or cookies), the Content-Security-Policy built
 *   from the resource's `_meta.ui.csp` (as a `<meta>` first in the document
 *   and as the iframe's `csp` attribute) and an `allow` attribute for the
 *   permissions it declares;
 * - every `tools/call` the UI makes goes through `AppHost.callTool`: the
 *   approval policy (an `Approver` such as `Approvals.layer` asks), the call
 *   history with the app as origin, quarantine; a denied call never reaches
 *   the server, the app gets a JSON-RPC error.
 *
 * The bridge: the host answers `ui/initialize` (host info, capabilities, the
 * host context with `theme` and the tool), sends the tool's input and result
 * once the app is initialised, follows `ui/notifications/size-changed`
 * (height), sends `ui/notifications/host-context-changed` when `theme`
 * changes, and sends `ui/resource-teardown` before the component unmounts.
 * A frame that navigates away from the app's document is cut off the bridge.
 *
 * @since 0.4.0
 */
import * as McpApps from "@mcp-effect/core/McpApps"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import * as AppHost from "@mcp-effect/hub/AppHost"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as React from "react"
import * as Bridge from "./internal/appBridge.js"
import { useRuntime } from "./RuntimeProvider.js"

/**
 * Where an app's UI stands: `Loading`, `Ready` (the UI as pinned), `Changed`
 * (the server serves another UI than the one approved: `approve` pins it),
 * `Failed` (not a UI, unreadable, or the server is not connected).
 *
 * @since 0.4.0
 * @category models
 */
export type State =
  | { readonly _tag: "Loading" }
  | { readonly _tag: "Ready"; readonly loaded: AppHost.Loaded }
  | { readonly _tag: "Changed"; readonly changed: AppHost.UiChanged; readonly approve: () => void }
  | { readonly _tag: "Failed"; readonly message: string }

/**
 * The UI of `tool` on `server`, loaded through the provider's `AppHost`:
 * `Failed` for a tool without a `ui://` resource.
 *
 * @since 0.4.0
 * @category hooks
 */
export const useMcpApp = (server: string, tool: McpSchema.Tool): State => {
  const runtime = useRuntime()
  const uri = Option.getOrUndefined(McpApps.resourceUri(tool))
  const [state, setState] = React.useState<State>({ _tag: "Loading" })
  const [round, setRound] = React.useState(0)
  React.useEffect(() => {
    if (runtime === null) return
    if (uri === undefined) return setState({ _tag: "Failed", message: `tool ${tool.name} has no ui:// resource` })
    setState({ _tag: "Loading" })
    const app: AppHost.App = { server, uri }
    const load = Effect.flatMap(AppHost.AppHost, (host) =>
      host.load(app).pipe(
        Effect.map((loaded): State => ({ _tag: "Ready", loaded })),
        Effect.catchTag("UiChanged", (changed) =>
          Effect.succeed<State>({
            _tag: "Changed",
            changed,
            approve: () =>
              runtime.runCallback(host.approveUi(app, changed.digest), { onExit: () => setRound((n) => n + 1) })
          }))
      ))
    return runtime.runCallback(load as Effect.Effect<State, unknown, never>, {
      onExit: (exit: Exit.Exit<State, unknown>) => {
        if (Exit.isSuccess(exit)) return setState(exit.value)
        if (Cause.isInterruptedOnly(exit.cause)) return
        const error = Cause.squash(exit.cause)
        setState({ _tag: "Failed", message: error instanceof Error ? error.message : String(error) })
      }
    })
  }, [runtime, server, uri, tool.name, round])
  return state
}

/**
 * @since 0.4.0
 * @category models
 */
export interface Props {
  /** The server (its registry name) whose tool this is. */
  readonly server: string
  /** The tool as listed (its `_meta.ui.resourceUri` names the UI). */
  readonly tool: McpSchema.Tool
  /** The arguments the tool was called with, sent to the app as its input. */
  readonly input?: Record<string, unknown> | undefined
  /** The tool's result, sent to the app once it is there. */
  readonly result?: McpSchema.CallToolResult | undefined
  readonly theme?: "light" | "dark" | undefined
  /** Default `{ name: "mcp-effect", version: "0.4.0" }`. */
  readonly hostInfo?: { readonly name: string; readonly version: string } | undefined
  /** `ui/open-link`: without it the app is told links are not supported. */
  readonly onOpenLink?: ((url: string) => void) | undefined
  /** `ui/message`: a message the app wants added to the conversation. */
  readonly onMessage?: ((params: Record<string, unknown>) => void) | undefined
  /** The app asked to be closed (`ui/notifications/request-teardown`). */
  readonly onRequestClose?: (() => void) | undefined
  /** The tallest the iframe grows, in pixels. Default 800. */
  readonly maxHeight?: number | undefined
  /** What to show for a UI that changed since it was approved. Default: a notice with an Approve button. */
  readonly renderChanged?: ((changed: AppHost.UiChanged, approve: () => void) => React.ReactNode) | undefined
  readonly className?: string | undefined
  readonly title?: string | undefined
}

const defaultHostInfo = { name: "mcp-effect", version: "0.4.0" }

const errorOf = (cause: Cause.Cause<unknown>): Bridge.BridgeError => {
  const error = Cause.squash(cause)
  const tag = typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : "Error"
  return { code: -32000, message: `${tag}: ${error instanceof Error ? error.message : String(error)}` }
}

const Frame = (props: Props & { readonly loaded: AppHost.Loaded }): React.ReactElement => {
  const runtime = useRuntime()
  const { loaded } = props
  const frame = React.useRef<HTMLIFrameElement>(null)
  const bridge = React.useRef<Bridge.Bridge | null>(null)
  const [height, setHeight] = React.useState<number | undefined>(undefined)
  const policy = McpApps.contentSecurityPolicy(loaded.resource.csp)
  // the latest props for the bridge's callbacks, without rebuilding the bridge
  const latest = React.useRef(props)
  latest.current = props

  React.useEffect(() => {
    const iframe = frame.current
    if (iframe === null || runtime === null) return
    const cancels = new Set<() => void>()
    const instance = Bridge.make({
      post: (message) => iframe.contentWindow?.postMessage(message, "*"),
      hostInfo: latest.current.hostInfo ?? defaultHostInfo,
      context: {
        theme: latest.current.theme ?? "light",
        displayMode: "inline",
        availableDisplayModes: ["inline"],
        platform: "web",
        toolInfo: { tool: latest.current.tool },
        containerDimensions: { maxHeight: latest.current.maxHeight ?? 800 }
      },
      callTool: (name, args) =>
        new Promise((resolve, reject) => {
          const call = Effect.flatMap(AppHost.AppHost, (host) => host.callTool(loaded.app, name, args))
          const cancel = runtime.runCallback(call as Effect.Effect<McpSchema.CallToolResult, unknown, never>, {
            onExit: (exit: Exit.Exit<McpSchema.CallToolResult, unknown>) => {
              cancels.delete(cancel)
              if (Exit.isSuccess(exit)) resolve(exit.value)
              else reject(errorOf(exit.cause))
            }
          })
          cancels.add(cancel)
        }),
      onSize: ({ height }) => {
        if (height !== undefined) setHeight(Math.min(Math.ceil(height), latest.current.maxHeight ?? 800))
      },
      openLink: latest.current.onOpenLink === undefined ? undefined : (url) => {
        latest.current.onOpenLink?.(url)
        return Promise.resolve()
      },
      message: latest.current.onMessage === undefined ? undefined : (params) => {
        latest.current.onMessage?.(params)
        return Promise.resolve()
      },
      onRequestTeardown: () => latest.current.onRequestClose?.()
    })
    bridge.current = instance
    const onMessage = (event: MessageEvent) => {
      // only the app's own frame speaks on this bridge
      if (event.source === iframe.contentWindow) instance.receive(event.data)
    }
    window.addEventListener("message", onMessage)
    if (latest.current.input !== undefined) instance.toolInput(latest.current.input)
    if (latest.current.result !== undefined) instance.toolResult(latest.current.result)
    return () => {
      window.removeEventListener("message", onMessage)
      // the app is told first; its calls still running are cancelled (interrupting them cancels them on the server)
      void instance.teardown(0)
      for (const cancel of cancels) cancel()
      instance.close()
      bridge.current = null
    }
  }, [runtime, loaded])

  const sentResult = React.useRef(props.result)
  React.useEffect(() => {
    if (props.result !== undefined && props.result !== sentResult.current) bridge.current?.toolResult(props.result)
    sentResult.current = props.result
  }, [props.result])
  const sentTheme = React.useRef(props.theme)
  React.useEffect(() => {
    if (props.theme !== sentTheme.current) bridge.current?.contextChanged({ theme: props.theme ?? "light" })
    sentTheme.current = props.theme
  }, [props.theme])

  // the document loads once; a second load is the frame navigating itself away from the app's document:
  // whatever is there now is not the app, and gets nothing more from the host
  const loads = React.useRef(0)
  const onLoad = () => {
    if (++loads.current > 1) bridge.current?.close()
  }
  const allow = McpApps.allow(loaded.resource.permissions)
  return React.createElement("iframe", {
    ref: frame,
    onLoad,
    title: props.title ?? props.tool.title ?? props.tool.name,
    className: props.className,
    sandbox: McpApps.sandbox,
    // CSP Embedded Enforcement where the browser has it, on top of the <meta> in the document
    ...{ csp: policy },
    ...(allow === "" ? {} : { allow }),
    srcDoc: Bridge.withPolicy(loaded.resource.html, policy),
    "data-mcp-app": loaded.app.uri,
    style: {
      width: "100%",
      height: height ?? 150,
      border: loaded.resource.prefersBorder === false ? "none" : "1px solid rgba(127, 127, 127, 0.4)",
      display: "block"
    }
  })
}

const defaultChanged = (changed: AppHost.UiChanged, approve: () => void) =>
  React.createElement(
    "div",
    { role: "alert", "data-mcp-app-changed": changed.uri },
    React.createElement("p", null, changed.message),
    React.createElement("button", { type: "button", onClick: approve }, "Approve the new UI")
  )

/**
 * Renders a tool's MCP App. See the module's description for what it
 * enforces.
 *
 * @since 0.4.0
 * @category components
 */
export const McpApp = (props: Props): React.ReactElement | null => {
  const state = useMcpApp(props.server, props.tool)
  switch (state._tag) {
    case "Loading":
      return React.createElement("div", { "aria-busy": true }, "Loading the app…")
    case "Failed":
      return React.createElement("div", { role: "alert" }, state.message)
    case "Changed":
      return React.createElement(
        React.Fragment,
        null,
        (props.renderChanged ?? defaultChanged)(state.changed, state.approve)
      )
    case "Ready":
      return React.createElement(Frame, { ...props, key: state.loaded.digest, loaded: state.loaded })
  }
}
