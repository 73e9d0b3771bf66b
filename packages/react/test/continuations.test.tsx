// A page reloaded while a server waited for input: the continuation an earlier page left in the
// shared store is listed again, answered from the UI through a client, and leaves the list; a second
// answer (another tab was quicker) is refused with the typed error.
import { Continuations, SharedStore } from "@mcp-effect/core"
import { act, cleanup, render, screen, waitFor } from "@testing-library/react"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { afterEach, describe, expect, it } from "vitest"
import { Continuations as ReactContinuations, RuntimeProvider } from "../src/index.js"

afterEach(cleanup)

const encode = Schema.encodeSync(Schema.parseJson(Continuations.Continuation))

const leftBehind: Continuations.Continuation = {
  id: "c-1",
  server: "bookings",
  method: "tools/call",
  params: { name: "book", arguments: { table: "7" } },
  requestState: "book:7",
  inputRequests: { name: { method: "elicitation/create", params: { message: "Whose name?" } } },
  round: 1,
  createdAt: Date.now(),
  updatedAt: Date.now(),
  expiresAt: Date.now() + 600_000,
  state: "Pending"
}

/** The server, as far as the answer goes: records the retry and completes it. */
const sent: Array<{ method: string; params: unknown }> = []
const client: Continuations.Sender = {
  session: {
    request: (method, params) =>
      Effect.sync(() => {
        sent.push({ method, params })
        return { content: [{ type: "text", text: "booked 7 for Ada" }] }
      })
  }
}

let runtime: RuntimeProvider.AnyRuntime | undefined
let answered: Promise<unknown> | undefined
let hook: ReactContinuations.UseContinuations | undefined

const Pending = () => {
  runtime = RuntimeProvider.useRuntime() ?? undefined
  hook = ReactContinuations.useContinuations({ server: "bookings", client })
  return (
    <ul>
      {hook.continuations.map((c) => (
        <li key={c.id}>
          <span data-testid="prompt">{String(c.inputRequests.name?.params?.message)}</span>
          <button
            onClick={() => answered = hook!.answer(c.id, { name: { action: "accept", content: { name: "Ada" } } })}
          >
            answer
          </button>
        </li>
      ))}
    </ul>
  )
}

describe("useContinuations", () => {
  it("lists a continuation an earlier page left, answers it once, and drops it from the list", async () => {
    // the store outlives the page (IndexedDB in a browser): the record is there before the page mounts
    const store = Effect.runSync(Effect.provide(SharedStore.SharedStore, SharedStore.layerMemory))
    Effect.runSync(store.collection("mcp-continuations").put(leftBehind.id, encode(leftBehind)))
    const layer = Continuations.layer().pipe(Layer.provide(Layer.succeed(SharedStore.SharedStore, store)))

    render(
      <RuntimeProvider.Provider layer={layer}>
        <Pending />
      </RuntimeProvider.Provider>
    )
    await waitFor(() => expect(screen.getByTestId("prompt").textContent).toBe("Whose name?"))
    act(() => screen.getByText("answer").click())
    expect(await answered).toEqual({ content: [{ type: "text", text: "booked 7 for Ada" }] })
    expect(sent).toEqual([{
      method: "tools/call",
      params: {
        name: "book",
        arguments: { table: "7" },
        inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
        requestState: "book:7"
      }
    }])
    await waitFor(() => expect(screen.queryByTestId("prompt")).toBeNull())

    // another tab answering the same continuation late: refused, nothing sent
    const late = await hook!.answer(leftBehind.id, {}).then(() => undefined, (error: unknown) => error)
    expect(late).toMatchObject({ _tag: "ContinuationAlreadyAnswered", state: "Completed" })
    expect(sent).toHaveLength(1)
    const stored = await runtime!.runPromise(
      Effect.flatMap(Continuations.Continuations, (service) => service.get(leftBehind.id))
    )
    expect(Option.map(stored, (c) => c.state)).toEqual(Option.some("Completed"))
  })
})
