import { McpClient, TestServer } from "@mcp-effect/core"
import { act, cleanup, render, screen, waitFor } from "@testing-library/react"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { StrictMode } from "react"
import { afterEach, describe, expect, it } from "vitest"
import { Client, RuntimeProvider, ToolCall } from "../src/index.js"

afterEach(cleanup)

const tools = [
  { name: "echo", description: "echoes", inputSchema: { type: "object" } },
  { name: "slow", inputSchema: { type: "object" }, annotations: { destructiveHint: false } }
]

/** A server whose `slow` tool reports progress, then waits until the test releases it. */
const makeApp = Effect.gen(function*() {
  const release = yield* Deferred.make<void>()
  const started = yield* Deferred.make<void>()
  const server = TestServer.layer({
    capabilities: { tools: { listChanged: true } },
    handlers: {
      "tools/list": () => Effect.succeed({ tools }),
      "tools/call": ({ params, progress }) =>
        params.name === "echo" ?
          Effect.succeed({ content: [{ type: "text", text: `echo: ${(params.arguments as any)?.message}` }] }) :
          params.name === "broken" ?
          Effect.succeed({ content: [{ type: "text", text: "the disk is full" }], isError: true }) :
          Effect.gen(function*() {
            yield* progress(1, 2, "half way")
            yield* Deferred.succeed(started, undefined)
            yield* Deferred.await(release)
            return { content: [{ type: "text", text: "done" }] }
          })
    }
  })
  const layer = Layer.provideMerge(McpClient.layer({ clientInfo: { name: "react-test", version: "1.0.0" } }), server)
  return { layer, release, started }
})

/** Hands the provider's runtime to the test. */
let runtime: RuntimeProvider.AnyRuntime | undefined
const Probe = () => {
  runtime = RuntimeProvider.useRuntime() ?? undefined
  return null
}

const Status = () => {
  const state = Client.useConnectionState()
  const tools = Client.useTools()
  return (
    <div>
      <p data-testid="state">{state._tag === "Ready" ? `ready ${state.initialized.serverInfo.name}` : state._tag}</p>
      <ul>{tools.map((tool) => <li key={tool.name}>{tool.name}</li>)}</ul>
    </div>
  )
}

const Runner = ({ args, name }: { name: string; args?: Record<string, unknown> }) => {
  const call = ToolCall.useToolCall(name, { timeout: "10 seconds" })
  const text = call.result?.content.map((block) => block.type === "text" ? block.text : "").join("")
  return (
    <div>
      <button disabled={!call.ready} onClick={() => call.run(args)}>run</button>
      <button onClick={call.cancel}>cancel</button>
      <p data-testid="status">{call.status}</p>
      <p data-testid="progress">{call.progress ? `${call.progress.progress}/${call.progress.total}` : "-"}</p>
      <p data-testid="result">{text ?? "-"}</p>
    </div>
  )
}

/** Renders a runner of the `slow` tool and starts it; resolves once the server is running it. */
const startSlowCall = async () => {
  const app = await Effect.runPromise(makeApp)
  const view = render(
    <RuntimeProvider.Provider layer={app.layer}>
      <Probe />
      <Runner name="slow" />
    </RuntimeProvider.Provider>
  )
  await waitFor(() => expect(screen.getByText("run").hasAttribute("disabled")).toBe(false))
  act(() => screen.getByText("run").click())
  await Effect.runPromise(Deferred.await(app.started))
  return { app, view }
}

const serverReceivedCancellation = () =>
  waitFor(async () => {
    const received = await runtime!.runPromise(Effect.flatMap(TestServer.TestServer, (server) => server.received))
    expect(received.some((m) => "method" in m && m.method === "notifications/cancelled")).toBe(true)
  })

describe("RuntimeProvider + client hooks", () => {
  it("shows the connection state and the live tools of the client in the Layer", async () => {
    const app = await Effect.runPromise(makeApp)
    render(
      <StrictMode>
        <RuntimeProvider.Provider layer={app.layer}>
          <Status />
        </RuntimeProvider.Provider>
      </StrictMode>
    )
    expect(screen.getByTestId("state").textContent).toBe("Connecting")
    await waitFor(() => expect(screen.getByTestId("state").textContent).toBe("ready test-server"))
    await waitFor(() => expect(screen.getAllByRole("listitem").map((li) => li.textContent)).toEqual(["echo", "slow"]))
  })

  it("runs a tool and shows its result", async () => {
    const app = await Effect.runPromise(makeApp)
    render(
      <RuntimeProvider.Provider layer={app.layer}>
        <Runner name="echo" args={{ message: "hi" }} />
      </RuntimeProvider.Provider>
    )
    await waitFor(() => expect(screen.getByText("run").hasAttribute("disabled")).toBe(false))
    act(() => screen.getByText("run").click())
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("Completed"))
    expect(screen.getByTestId("result").textContent).toBe("echo: hi")
  })

  it("a tool failure (isError) is Failed, with its result, as in the call history", async () => {
    const app = await Effect.runPromise(makeApp)
    render(
      <RuntimeProvider.Provider layer={app.layer}>
        <Runner name="broken" />
      </RuntimeProvider.Provider>
    )
    await waitFor(() => expect(screen.getByText("run").hasAttribute("disabled")).toBe(false))
    act(() => screen.getByText("run").click())
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("Failed"))
    expect(screen.getByTestId("result").textContent).toBe("the disk is full")
  })

  it("shows progress, and cancel interrupts the call and tells the server", async () => {
    await startSlowCall()
    await waitFor(() => expect(screen.getByTestId("progress").textContent).toBe("1/2"))
    expect(screen.getByTestId("status").textContent).toBe("Running")
    act(() => screen.getByText("cancel").click())
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("Cancelled"))
    await serverReceivedCancellation()
  })

  it("a second run while one is running stays Running (the interrupted run never sets the state)", async () => {
    const { app } = await startSlowCall()
    act(() => screen.getByText("run").click())
    await serverReceivedCancellation()
    // let the interrupted fiber's exit reach its observer
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(screen.getByTestId("status").textContent).toBe("Running")
    await Effect.runPromise(Deferred.succeed(app.release, undefined))
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("Completed"))
    expect(screen.getByTestId("result").textContent).toBe("done")
  })

  it("cancel then run at once: the new run's state is the one shown", async () => {
    const { app } = await startSlowCall()
    act(() => {
      screen.getByText("cancel").click()
      screen.getByText("run").click()
    })
    await serverReceivedCancellation()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(screen.getByTestId("status").textContent).toBe("Running")
    await Effect.runPromise(Deferred.succeed(app.release, undefined))
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("Completed"))
  })

  it("unmounting a component cancels its running call", async () => {
    const { app, view } = await startSlowCall()
    view.rerender(
      <RuntimeProvider.Provider layer={app.layer}>
        <Probe />
      </RuntimeProvider.Provider>
    )
    await serverReceivedCancellation()
  })

  it("disposes the runtime when the provider unmounts (the server sees the connection close)", async () => {
    const app = await Effect.runPromise(makeApp)
    const view = render(
      <RuntimeProvider.Provider layer={app.layer}>
        <Probe />
        <Status />
      </RuntimeProvider.Provider>
    )
    await waitFor(() => expect(screen.getByTestId("state").textContent).toBe("ready test-server"))
    const client = await runtime!.runPromise(McpClient.McpClient)
    view.unmount()
    await waitFor(async () => {
      const state = await Effect.runPromise(client.state.get)
      expect(state._tag).toBe("Closed")
    })
  })
})
