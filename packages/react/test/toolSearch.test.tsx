// useToolSearch over a registry of in-memory servers: a search activates what it finds, and the
// activated tools come back from the store when the provider is mounted again.
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { McpTransport, TestServer } from "@mcp-effect/core"
import { ServerRegistry, TransportFactory } from "@mcp-effect/hub"
import { act, cleanup, render, screen, waitFor } from "@testing-library/react"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterEach, describe, expect, it } from "vitest"
import { RuntimeProvider, ToolSearch } from "../src/index.js"

afterEach(cleanup)

const tools = [
  { name: "delete_directory", description: "Removes a directory.", inputSchema: { type: "object" } },
  { name: "create_issue", description: "Files a new issue.", inputSchema: { type: "object" } }
]

const transports = Layer.succeed(TransportFactory.TransportFactory, {
  make: () =>
    Effect.map(
      Layer.build(
        TestServer.layer({ capabilities: { tools: {} }, handlers: { "tools/list": () => Effect.succeed({ tools }) } })
      ),
      (context) => ({ context: Context.pick(McpTransport.McpTransport)(context), sessionId: Effect.succeed(undefined) })
    )
})

const app = (store: Layer.Layer<KeyValueStore.KeyValueStore>) =>
  ServerRegistry.layer({
    servers: [{
      name: "files",
      transport: { _tag: "Http", url: "http://127.0.0.1:1/files", headers: {} },
      disabled: false,
      trusted: false
    }]
  }).pipe(Layer.provide(transports), Layer.provideMerge(store))

const Search = () => {
  const search = ToolSearch.useToolSearch("chat-1")
  return (
    <div>
      <button disabled={!search.ready} onClick={() => search.search("erase a folder", { limit: 1 })}>search</button>
      <p data-testid="results">{search.results.map((hit) => `${hit.server}/${hit.name}`).join(",") || "-"}</p>
      <p data-testid="activated">{search.activated.join(",") || "-"}</p>
    </div>
  )
}

describe("useToolSearch", () => {
  it("searches, shows hits with their server, and keeps the activated tools in the store", async () => {
    const store = Layer.succeed(
      KeyValueStore.KeyValueStore,
      Effect.runSync(
        Layer.build(KeyValueStore.layerMemory).pipe(
          Effect.map(Context.get(KeyValueStore.KeyValueStore)),
          Effect.scoped
        )
      )
    )
    const view = render(
      <RuntimeProvider.Provider layer={app(store)}>
        <Search />
      </RuntimeProvider.Provider>
    )
    await waitFor(() => expect(screen.getByText("search").hasAttribute("disabled")).toBe(false))
    // the servers may still be listing: search until the tool is there
    await waitFor(() => {
      act(() => screen.getByText("search").click())
      expect(screen.getByTestId("results").textContent).toBe("files/delete_directory")
    })
    await waitFor(() => expect(screen.getByTestId("activated").textContent).toBe("delete_directory"))
    view.unmount()

    render(
      <RuntimeProvider.Provider layer={app(store)}>
        <Search />
      </RuntimeProvider.Provider>
    )
    await waitFor(() => expect(screen.getByTestId("activated").textContent).toBe("delete_directory"))
    expect(screen.getByTestId("results").textContent).toBe("-")
  })
})
