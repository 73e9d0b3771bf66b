import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { ApprovalPolicy, McpClient, McpTransport, TestServer, ToolCallLog } from "@mcp-effect/core"
import { ServerRegistry, TransportFactory } from "@mcp-effect/hub"
import { Authorizer, BrowserAuthorizer } from "@mcp-effect/oauth"
import { act, cleanup, render, screen, waitFor } from "@testing-library/react"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterEach, describe, expect, it } from "vitest"
import { Approvals, Client, History, OAuth, Registry, RuntimeProvider, ToolCall } from "../src/index.js"

afterEach(cleanup)

let runtime: RuntimeProvider.AnyRuntime | undefined
const Probe = () => {
  runtime = RuntimeProvider.useRuntime() ?? undefined
  return null
}

const tools = [
  { name: "echo", inputSchema: { type: "object" } },
  { name: "wipe", inputSchema: { type: "object" }, annotations: { destructiveHint: true, openWorldHint: false } }
]
const server = () =>
  TestServer.layer({
    capabilities: { tools: {} },
    handlers: {
      "tools/list": () => Effect.succeed({ tools }),
      "tools/call": ({ params }) => Effect.succeed({ content: [{ type: "text", text: `ran ${params.name}` }] })
    }
  })

const calls = (received: ReadonlyArray<unknown>) =>
  received.filter((m: any) => m.method === "tools/call").map((m: any) => m.params.name)

/** A dialog over `usePendingApprovals`, a runner and the history list. */
const Dialog = () => {
  const approvals = Approvals.usePendingApprovals()
  return (
    <ul>
      {approvals.map((approval) => (
        <li key={approval.id} data-testid="approval">
          <span data-testid="asked">{approval.request.server}/{approval.request.tool.name}</span>
          {approval.askedBy !== undefined && (
            <span data-testid="asked-by">asked by {approval.askedBy} ({approval.request.origin?.uri})</span>
          )}
          <span data-testid="warnings">{approval.request.warnings.map((w) => w._tag).join(",")}</span>
          <button onClick={approval.approveOnce}>once</button>
          <button onClick={approval.approveAlways}>always</button>
          <button onClick={() => approval.deny("not now")}>deny</button>
        </li>
      ))}
    </ul>
  )
}
const Runner = ({ name }: { name: string }) => {
  const call = ToolCall.useToolCall(name)
  return (
    <div>
      <button disabled={!call.ready} onClick={() => call.run({})}>run</button>
      <p data-testid="status">{call.status}</p>
      <p data-testid="error">{call.error?._tag ?? "-"}</p>
    </div>
  )
}
const Log = () => {
  const { clear, records } = History.useToolCallLog()
  return (
    <div>
      <ol>{records.map((r) => <li key={r.id} data-testid="record">{r.tool}:{r.status}</li>)}</ol>
      <button onClick={clear}>clear</button>
    </div>
  )
}

const askingApp = () =>
  McpClient.layer({ clientInfo: { name: "react-test", version: "1.0.0" }, server: "local" }).pipe(
    Layer.provideMerge(Layer.mergeAll(
      Approvals.layer(),
      ApprovalPolicy.layerMemory({ mode: "always-ask" }),
      ToolCallLog.layerMemory()
    )),
    Layer.provideMerge(server())
  )

const received = () => runtime!.runPromise(Effect.flatMap(TestServer.TestServer, (s) => s.received))
const records = () => screen.queryAllByTestId("record").map((li) => li.textContent)

/** Renders the dialog and an `echo` runner, runs it, and waits until the dialog asks. */
const runEchoUntilAsked = async () => {
  render(
    <RuntimeProvider.Provider layer={askingApp()}>
      <Probe />
      <Dialog />
      <Runner name="echo" />
    </RuntimeProvider.Provider>
  )
  await waitFor(() => expect(screen.getByText("run").hasAttribute("disabled")).toBe(false))
  act(() => screen.getByText("run").click())
  await waitFor(() => expect(screen.getByTestId("asked").textContent).toBe("local/echo"))
}

describe("Approvals + History", () => {
  it("asks in the UI with the tool's warnings; approve once runs the call, the next call asks again", async () => {
    render(
      <RuntimeProvider.Provider layer={askingApp()}>
        <Probe />
        <Dialog />
        <Runner name="wipe" />
        <Log />
      </RuntimeProvider.Provider>
    )
    await waitFor(() => expect(screen.getByText("run").hasAttribute("disabled")).toBe(false))
    act(() => screen.getByText("run").click())
    await waitFor(() => expect(screen.getByTestId("asked").textContent).toBe("local/wipe"))
    expect(screen.getByTestId("warnings").textContent).toBe("UntrustedServer,Destructive")
    await waitFor(() => expect(records()).toEqual(["wipe:AwaitingApproval"]))
    // the call panel and the history say the same while the dialog asks
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("AwaitingApproval"))
    expect(calls(await received())).toEqual([])
    act(() => screen.getByText("once").click())
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("Completed"))
    expect(screen.queryByTestId("approval")).toBeNull()
    expect(calls(await received())).toEqual(["wipe"])
    await waitFor(() => expect(records()).toEqual(["wipe:Completed"]))

    act(() => screen.getByText("run").click())
    await waitFor(() => expect(screen.getByTestId("asked").textContent).toBe("local/wipe"))
    act(() => screen.getByText("deny").click())
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("Denied"))
    expect(screen.getByTestId("error").textContent).toBe("ApprovalDenied")
    expect(calls(await received())).toEqual(["wipe"])
    await waitFor(() => expect(records()).toEqual(["wipe:Completed", "wipe:Denied"]))
    act(() => screen.getByText("clear").click())
    await waitFor(() => expect(records()).toEqual([]))
  })

  it("approve always: the same tool runs again without asking", async () => {
    await runEchoUntilAsked()
    act(() => screen.getByText("always").click())
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("Completed"))
    act(() => screen.getByText("run").click())
    await waitFor(async () => expect(calls(await received())).toEqual(["echo", "echo"]))
    expect(screen.queryByTestId("approval")).toBeNull()
  })
})

describe("Approvals from an MCP App", () => {
  it("a call an app's UI made says so in the dialog; the host's own call does not", async () => {
    await runEchoUntilAsked()
    expect(screen.queryByTestId("asked-by")).toBeNull()
    act(() => screen.getByText("once").click())
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("Completed"))

    const fromApp = runtime!.runPromise(
      Effect.flatMap(McpClient.McpClient, (client) => client.callTool({ name: "echo" })).pipe(
        ToolCallLog.withOrigin({ _tag: "App", uri: "ui://echo/app.html" })
      )
    )
    await waitFor(() =>
      expect(screen.getByTestId("asked-by").textContent).toBe("asked by the app of local (ui://echo/app.html)")
    )
    act(() => screen.getByText("once").click())
    await fromApp
    expect(calls(await received())).toEqual(["echo", "echo"])
  })
})

describe("History after a reload", () => {
  it("a record left Running by an earlier page shows as Interrupted; this page's own running call does not", async () => {
    // one store for both pages (a browser's IndexedDB across the reload)
    const stored = await Effect.runPromise(Effect.scoped(Layer.build(KeyValueStore.layerMemory)))
    const kv = Layer.succeed(KeyValueStore.KeyValueStore, Context.get(stored, KeyValueStore.KeyValueStore))
    // the earlier page: a call started, then the page went away
    await Effect.runPromise(
      Effect.scoped(Effect.gen(function*() {
        const log = yield* ToolCallLog.make()
        yield* log.start({ server: "local", tool: "slow", status: "Running" })
        const done = yield* log.start({ server: "local", tool: "task", status: "Running" })
        yield* log.update(done, { taskId: "t1", taskStatus: "input_required" })
        yield* log.update(done, { status: "Completed" })
      })).pipe(Effect.provide(kv))
    )

    const StatusLog = () => {
      const { records, statusOf } = History.useToolCallLog()
      return (
        <ol>
          {records.map((r) => (
            <li key={r.id} data-testid="row">{r.tool}:{statusOf(r)}:{History.taskStatusOf(r) ?? "-"}</li>
          ))}
        </ol>
      )
    }
    const app = McpClient.layer({ clientInfo: { name: "react-test", version: "1.0.0" }, server: "local" }).pipe(
      Layer.provideMerge(
        Layer.mergeAll(
          Approvals.layer(),
          ApprovalPolicy.layerMemory({ mode: "always-ask" }),
          ToolCallLog.layer().pipe(Layer.provide(kv))
        )
      ),
      Layer.provideMerge(server())
    )
    render(
      <RuntimeProvider.Provider layer={app}>
        <StatusLog />
        <Runner name="echo" />
      </RuntimeProvider.Provider>
    )
    await waitFor(() =>
      expect(screen.getAllByTestId("row").map((li) => li.textContent)).toEqual([
        "slow:Interrupted:-",
        "task:Completed:completed"
      ])
    )
    await waitFor(() => expect(screen.getByText("run").hasAttribute("disabled")).toBe(false))
    act(() => screen.getByText("run").click())
    await waitFor(() =>
      expect(screen.getAllByTestId("row").map((li) => li.textContent)).toEqual([
        "slow:Interrupted:-",
        "task:Completed:completed",
        "echo:AwaitingApproval:-"
      ])
    )
  })
})

/** A registry whose every server is an in-memory `TestServer` with a fixed session id. */
const testTransports = Layer.succeed(TransportFactory.TransportFactory, {
  make: (config) =>
    Effect.map(Layer.build(server()), (context) => ({
      context: Context.pick(McpTransport.McpTransport)(context),
      sessionId: Effect.succeed(`session-of-${config.name}`)
    }))
})

const http = (name: string) => ({
  name,
  transport: { _tag: "Http" as const, url: `http://127.0.0.1:1/${name}`, headers: {} },
  disabled: false,
  trusted: false
})
const registryApp = () => ServerRegistry.layer({ servers: [http("alpha")] }).pipe(Layer.provide(testTransports))

const Servers = () => {
  const servers = Registry.useServers()
  const tools = Registry.useHubTools()
  const client = Registry.useServerClient("alpha")
  const clientTools = Client.useTools(client)
  return (
    <div>
      <ol>{servers.map((s) => <li key={s.name} data-testid="server">{s.name} {s._tag} {s.sessionId ?? "-"}</li>)}</ol>
      <p data-testid="tools">{tools.map((t) => `${t.name}@${t.server}`).join(",")}</p>
      <p data-testid="client-tools">{clientTools.map((t) => t.name).join(",")}</p>
    </div>
  )
}

describe("Registry", () => {
  it("lists the servers with status and session id, their tools, and a server's client", async () => {
    render(
      <RuntimeProvider.Provider layer={registryApp()}>
        <Probe />
        <Servers />
      </RuntimeProvider.Provider>
    )
    await waitFor(() => expect(screen.getByTestId("server").textContent).toBe("alpha Connected session-of-alpha"))
    await waitFor(() => expect(screen.getByTestId("tools").textContent).toBe("echo@alpha,wipe@alpha"))
    await waitFor(() => expect(screen.getByTestId("client-tools").textContent).toBe("echo,wipe"))

    await runtime!.runPromise(Effect.flatMap(ServerRegistry.ServerRegistry, (r) => r.add(http("beta"))))
    await waitFor(() =>
      expect(screen.getAllByTestId("server").map((li) => li.textContent)).toEqual([
        "alpha Connected session-of-alpha",
        "beta Connected session-of-beta"
      ])
    )
    // alpha keeps the names it had (names are sticky); beta's colliding tools get its prefix
    await waitFor(() =>
      expect(screen.getByTestId("tools").textContent).toBe("echo@alpha,wipe@alpha,beta__echo@beta,beta__wipe@beta")
    )
    await runtime!.runPromise(Effect.flatMap(ServerRegistry.ServerRegistry, (r) => r.remove("alpha")))
    await waitFor(() =>
      expect(screen.getAllByTestId("server").map((li) => li.textContent)).toEqual(["beta Connected session-of-beta"])
    )
    await waitFor(() => expect(screen.getByTestId("client-tools").textContent).toBe(""))
  })
})

const Callback = () => {
  const state = OAuth.useOAuthCallback({ close: false })
  return <p data-testid="callback">{state._tag === "Done" ? `done ${state.error ?? "ok"}` : "pending"}</p>
}

describe("OAuth", () => {
  it("the callback page hands code and state to the app's window and clears the address bar", async () => {
    window.history.replaceState(null, "", "/callback?code=the-code&state=the-state")
    const channel = new BroadcastChannel("mcp-effect-oauth")
    const message = new Promise<any>((resolve) =>
      channel.addEventListener("message", (e) => resolve((e as MessageEvent).data))
    )
    render(<Callback />)
    await waitFor(() => expect(screen.getByTestId("callback").textContent).toBe("done ok"))
    const data = await message
    channel.close()
    expect(new URLSearchParams(data.query).get("code")).toBe("the-code")
    expect(new URLSearchParams(data.query).get("state")).toBe("the-state")
    expect(window.location.search).toBe("")
  })
})

const SignInNotice = () => {
  const { cancel, signIns } = OAuth.useSignIns()
  return (
    <ul>
      {signIns.map((signIn) => (
        <li key={signIn.id} data-testid="sign-in">
          {signIn.origin} {signIn.status} <button onClick={() => cancel(signIn.id)}>Cancel sign-in</button>
        </li>
      ))}
    </ul>
  )
}

describe("OAuth sign-ins", () => {
  it("lists a popup sign-in in progress, and Cancel sign-in ends its wait with Cancelled", async () => {
    const popup = { closed: false, close: () => void (popup.closed = true) }
    window.open = (() => popup as unknown as Window) as typeof window.open
    const layer = BrowserAuthorizer.layer({
      redirectUri: "https://app.example/oauth/callback",
      channel: "react-sign-in"
    })
    runtime = undefined
    render(
      <RuntimeProvider.Provider layer={layer}>
        <Probe />
        <SignInNotice />
      </RuntimeProvider.Provider>
    )
    await waitFor(() => expect(runtime).toBeDefined())
    const signIn = runtime!.runPromise(
      Effect.flip(
        Effect.flatMap(
          Authorizer.Authorizer,
          (authorizer) =>
            Effect.scoped(Effect.flatMap(authorizer.session, (session) =>
              session.authorize({
                url: new URL("https://as.example/authorize?state=s1"),
                state: "s1",
                redirectUri: session.redirectUri
              })))
        )
      )
    )
    await waitFor(() => expect(screen.getByTestId("sign-in").textContent).toMatch(/^https:\/\/as\.example Open/))
    act(() => screen.getByText("Cancel sign-in").click())
    const error = await signIn
    expect(error).toMatchObject({ _tag: "OAuthError", reason: "Interaction", interaction: "Cancelled" })
    expect(popup.closed).toBe(true)
    await waitFor(() => expect(screen.queryAllByTestId("sign-in")).toEqual([]))
  })
})
