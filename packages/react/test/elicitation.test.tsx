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
          <span data-testid="rejected">{request.rejected ?? "-"}</span>
          <button onClick={() => request.accept({ name: "Ada", age: 36 })}>accept</button>
          <button onClick={() => request.accept({ age: "old" })}>accept-wrong</button>
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

  it("an answer that does not match the schema stays, with the reason, and the corrected one is sent", async () => {
    await mountDialogs()
    const answer = runtime!.runFork(ask)
    await waitFor(() => expect(screen.getByTestId("message").textContent).toBe("Who are you?"))
    act(() => screen.getByText("accept-wrong").click())
    await waitFor(() => expect(screen.getByTestId("rejected").textContent).not.toBe("-"))
    expect(screen.getByTestId("rejected").textContent).toMatch(/name|age/)
    expect(screen.getByTestId("message").textContent).toBe("Who are you?")
    act(() => screen.getByText("accept").click())
    const response = await Effect.runPromise(Fiber.join(answer))
    expect(response).toMatchObject({ result: { action: "accept", content: { name: "Ada", age: 36 } } })
    await waitFor(() => expect(screen.queryByTestId("message")).toBeNull())
  })
})

describe("Elicitations.fields", () => {
  const schema = {
    type: "object" as const,
    properties: {
      name: { type: "string" as const, title: "Your name", default: "Ada", minLength: 1 },
      email: { type: "string" as const, format: "email" as const },
      age: { type: "integer" as const, title: "Age", minimum: 0 },
      subscribe: { type: "boolean" as const, title: "Subscribe" },
      color: {
        type: "string" as const,
        title: "Colour",
        oneOf: [{ const: "r", title: "Red" }, { const: "g", title: "Green" }],
        default: "g"
      },
      size: { type: "string" as const, enum: ["s", "m"], enumNames: ["Small", "Medium"] },
      plain: { type: "string" as const, enum: ["x", "y"] },
      tags: {
        type: "array" as const,
        title: "Tags",
        items: { type: "string" as const, enum: ["a", "b"] },
        minItems: 1
      },
      pets: {
        type: "array" as const,
        items: { anyOf: [{ const: "cat", title: "Cat" }, { const: "dog", title: "Dog" }] },
        default: ["dog"]
      }
    },
    required: ["name", "tags"]
  }
  const form = Elicitations.fields({ message: "m", requestedSchema: schema })

  it("labels by title, prefills defaults, and reads the spec's selects and multi-selects", () => {
    expect(form.map((f) => [f.name, f._tag, f.label, f.required])).toEqual([
      ["name", "Text", "Your name", true],
      ["email", "Text", "email", false],
      ["age", "Number", "Age", false],
      ["subscribe", "Boolean", "Subscribe", false],
      ["color", "Select", "Colour", false],
      ["size", "Select", "size", false],
      ["plain", "Select", "plain", false],
      ["tags", "MultiSelect", "Tags", true],
      ["pets", "MultiSelect", "pets", false]
    ])
    const choices = (name: string) => {
      const field = form.find((f) => f.name === name)
      return field?._tag === "Select" || field?._tag === "MultiSelect" ? field.choices : []
    }
    expect(choices("color")).toEqual([{ value: "r", label: "Red" }, { value: "g", label: "Green" }])
    expect(choices("size")).toEqual([{ value: "s", label: "Small" }, { value: "m", label: "Medium" }])
    expect(choices("plain")).toEqual([{ value: "x", label: "x" }, { value: "y", label: "y" }])
    expect(choices("tags")).toEqual([{ value: "a", label: "a" }, { value: "b", label: "b" }])
    expect(choices("pets")).toEqual([{ value: "cat", label: "Cat" }, { value: "dog", label: "Dog" }])
    expect(Elicitations.initialValues(form)).toEqual({ name: "Ada", subscribe: false, color: "g", pets: ["dog"] })
    expect(Elicitations.fields(schema)).toEqual(form)
    expect(Elicitations.fields({ mode: "url", message: "m", url: "https://example.com", elicitationId: "e" })).toEqual(
      []
    )
  })

  it("contentOf reads numbers typed as text and leaves out empty optional text", () => {
    expect(Elicitations.contentOf(form, { name: "Bo", email: "", age: "41", tags: ["a"], subscribe: true })).toEqual({
      name: "Bo",
      age: 41,
      tags: ["a"],
      subscribe: true
    })
    expect(Elicitations.contentOf(form, { age: "old" })).toEqual({ age: "old" })
  })
})
