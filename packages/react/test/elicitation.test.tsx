import { McpClient, TestServer } from "@mcp-effect/core"
import { act, cleanup, render, screen, waitFor } from "@testing-library/react"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { afterEach, describe, expect, it } from "vitest"
import { Elicitations, RuntimeProvider } from "../src/index.js"

afterEach(cleanup)

let runtime: RuntimeProvider.AnyRuntime | undefined
const Probe = () => {
  runtime = RuntimeProvider.useRuntime() ?? undefined
  return null
}

const Dialogs = () => {
  const requests = Elicitations.usePendingElicitations()
  return (
    <ul>
      {requests.map((request) => (
        <li key={request.id}>
          <span data-testid="message">{request.params.message}</span>
          <span data-testid="fields">
            {Elicitations.fields(request.params).map((f) => `${f.name}${f.required ? "*" : ""}`).join(",")}
          </span>
          <button onClick={() => request.accept({ name: "Ada", age: 36 })}>accept</button>
          <button onClick={request.decline}>decline</button>
        </li>
      ))}
    </ul>
  )
}

const layer = McpClient.layer({ clientInfo: { name: "react-test", version: "1.0.0" } }).pipe(
  Layer.provideMerge(Elicitations.layer()),
  Layer.provideMerge(TestServer.layer())
)

const ask = TestServer.TestServer.pipe(
  Effect.flatMap((server) =>
    server.request("elicitation/create", {
      message: "Who are you?",
      requestedSchema: {
        type: "object",
        properties: { name: { type: "string" }, age: { type: "number" } },
        required: ["name"]
      }
    })
  )
)

/** Renders the dialogs under a provider; resolves with the provider's client once it is initialized. */
const mountDialogs = async () => {
  render(
    <RuntimeProvider.Provider layer={layer}>
      <Probe />
      <Dialogs />
    </RuntimeProvider.Provider>
  )
  await waitFor(() => expect(runtime).toBeDefined())
  const client = await runtime!.runPromise(McpClient.McpClient)
  return await Effect.runPromise(client.initialized)
}

describe("Elicitations", () => {
  it("advertises elicitation, shows the server's form and sends the user's answer", async () => {
    const init = await mountDialogs()
    expect(init.serverInfo.name).toBe("test-server")
    const received = await runtime!.runPromise(Effect.flatMap(TestServer.TestServer, (s) => s.received))
    const initialize = received.find((m) => "method" in m && m.method === "initialize") as any
    expect(initialize.params.capabilities.elicitation).toBeDefined()

    const answer = runtime!.runFork(ask)
    await waitFor(() => expect(screen.getByTestId("message").textContent).toBe("Who are you?"))
    expect(screen.getByTestId("fields").textContent).toBe("name*,age")
    act(() => screen.getByText("accept").click())
    const response = await Effect.runPromise(Fiber.join(answer))
    expect(response).toMatchObject({ result: { action: "accept", content: { name: "Ada", age: 36 } } })
    await waitFor(() => expect(screen.queryByTestId("message")).toBeNull())
  })

  it("a request the server cancels leaves the list", async () => {
    await mountDialogs()
    const answer = runtime!.runFork(ask)
    await waitFor(() => expect(screen.getByTestId("message").textContent).toBe("Who are you?"))
    // the test server numbers its requests `server-1`, `server-2`, ...
    await runtime!.runPromise(
      Effect.flatMap(TestServer.TestServer, (s) => s.notify("notifications/cancelled", { requestId: "server-1" }))
    )
    await waitFor(() => expect(screen.queryByTestId("message")).toBeNull())
    await Effect.runPromise(Fiber.interrupt(answer))
  })
})
