// Tool search: the index on its own, the registry's searchTools following its tools, and deferred
// conversations (activated tools kept in the store, calls through the approval policy).
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import { ApprovalDecision, ApprovalPolicy, Approver, McpError, ToolCallLog } from "@mcp-effect/core"
import * as TestServer from "@mcp-effect/core/TestServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as McpToolkit from "../src/McpToolkit.js"
import * as NodeFileKeyValueStore from "../src/NodeFileKeyValueStore.js"
import * as ServerRegistry from "../src/ServerRegistry.js"
import * as ToolFormat from "../src/ToolFormat.js"
import * as ToolSearch from "../src/ToolSearch.js"
import * as TransportFactory from "../src/TransportFactory.js"
import { configs } from "./fixtures/memoryFactory.js"
import { text } from "./fixtures/registry.js"

type ToolDef = Record<string, unknown>

const hub = (server: string, tool: ToolDef): ServerRegistry.HubTool => ({
  name: String(tool.name),
  server,
  tool: { inputSchema: { type: "object" }, ...tool } as ServerRegistry.HubTool["tool"]
})

const files: ReadonlyArray<ToolDef> = [
  {
    name: "getFileContents",
    description: "Returns what a file holds.",
    inputSchema: { type: "object", properties: { path: { type: "string", description: "its location on disk" } } }
  },
  { name: "delete_directory", description: "Removes a directory and everything below it." },
  { name: "list_allowed_directories", description: "The directories this server may touch." }
]
const tracker: ReadonlyArray<ToolDef> = [
  { name: "create_issue", title: "Open an issue", description: "Files a new issue in a repository." },
  { name: "search", description: "Full-text search over issues." }
]

/** Servers whose tool lists can change: each name's tools in a Ref, `list_changed` sent on demand. */
const liveServers = (
  initial: Readonly<Record<string, ReadonlyArray<ToolDef>>>,
  instructions?: Record<string, string>
) =>
  Effect.gen(function*() {
    const lists = new Map<string, Ref.Ref<ReadonlyArray<ToolDef>>>()
    for (const [name, tools] of Object.entries(initial)) lists.set(name, yield* Ref.make(tools))
    const servers = new Map<string, TestServer.Service>()
    const factory = Layer.succeed(TransportFactory.TransportFactory, {
      make: (config) =>
        Effect.gen(function*() {
          const list = lists.get(config.name)!
          const context = yield* Layer.build(TestServer.layer({
            capabilities: { tools: { listChanged: true } },
            ...(instructions?.[config.name] === undefined ? {} : { instructions: instructions[config.name] }),
            handlers: {
              "tools/list": () =>
                Effect.map(
                  Ref.get(list),
                  (tools) => ({ tools: tools.map((t) => ({ inputSchema: { type: "object" }, ...t })) })
                ),
              "tools/call": ({ params }) =>
                Effect.succeed({ content: [{ type: "text", text: `${config.name} ran ${String(params?.name)}` }] })
            }
          }))
          servers.set(config.name, Context.get(context, TestServer.TestServer))
          return { context, sessionId: Effect.succeed(undefined) }
        })
    })
    const change = (name: string, tools: ReadonlyArray<ToolDef>) =>
      Effect.zipRight(Ref.set(lists.get(name)!, tools), servers.get(name)!.notify("notifications/tools/list_changed"))
    return { factory, change }
  })

/** Waits until the registry offers a tool satisfying `ok`. */
const toolsWhere = (registry: ServerRegistry.Service, ok: (tools: ReadonlyArray<ServerRegistry.HubTool>) => boolean) =>
  registry.tools.changes.pipe(
    Stream.filter(ok),
    Stream.runHead,
    Effect.flatten,
    Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("tools never changed") })
  )

const registryOf = <ROut>(
  factory: Layer.Layer<ROut>,
  names: ReadonlyArray<string>,
  options?: Partial<ServerRegistry.Options>
) =>
  Effect.map(
    Layer.build(ServerRegistry.layer({ servers: configs(...names), ...options }).pipe(Layer.provide(factory))),
    (context) => Context.get(context, ServerRegistry.ServerRegistry)
  )

const found = (hits: ReadonlyArray<ToolSearch.Hit>) => hits.map((hit) => `${hit.server}/${hit.tool.name}`)

describe("ToolSearch index", () => {
  const index = ToolSearch.makeIndex([...files.map((t) => hub("files", t)), ...tracker.map((t) => hub("tracker", t))])

  it("splits identifiers, so a camelCase name matches plain words", () => {
    expect(found(index.search("file contents", { limit: 1 }))).toEqual(["files/getFileContents"])
  })

  it("matches a request that shares no word with the tool through its synonyms", () => {
    // "erase" and "folder" are in neither the name nor the description of delete_directory
    expect(found(index.search("erase a folder", { limit: 1 }))).toEqual(["files/delete_directory"])
    expect(found(index.search("make a ticket", { limit: 1 }))).toEqual(["tracker/create_issue"])
  })

  it("matches parameter descriptions and the server's name", () => {
    expect(found(index.search("disk", { limit: 1 }))).toEqual(["files/getFileContents"])
    expect(found(index.search("tracker search", { limit: 1 }))).toEqual(["tracker/search"])
  })

  it("names the server of each hit when two servers list the same tool name, and filters by server", () => {
    const both = ToolSearch.makeIndex([
      {
        name: "a__search",
        server: "a",
        tool: { name: "search", description: "finds notes", inputSchema: { type: "object" } }
      },
      {
        name: "b__search",
        server: "b",
        tool: { name: "search", description: "finds notes", inputSchema: { type: "object" } }
      }
    ])
    expect(both.search("find notes").map((hit) => [hit.name, hit.server])).toEqual([["a__search", "a"], [
      "b__search",
      "b"
    ]])
    expect(both.search("find notes", { servers: ["b"] }).map((hit) => hit.name)).toEqual(["b__search"])
  })

  it("never finds a tool whose MCP Apps visibility leaves the model out", () => {
    const apps = ToolSearch.makeIndex([
      hub("ui", { name: "refresh_chart", description: "Redraws the chart", _meta: { ui: { visibility: ["app"] } } }),
      hub("ui", { name: "draw_chart", description: "Draws a chart", _meta: { ui: { visibility: ["model", "app"] } } })
    ])
    expect(found(apps.search("chart", { limit: 10 }))).toEqual(["ui/draw_chart"])
    expect(apps.size).toBe(1)
  })

  it("reads an issue key in a request as an issue", () => {
    expect(found(index.search("what is up with ENG-42", { limit: 1 }))).toEqual(["tracker/create_issue"])
  })

  it("finds nothing for a query of stop words only, and honours the limit", () => {
    expect(index.search("the of and")).toEqual([])
    expect(index.search("directory issue file", { limit: 2 })).toHaveLength(2)
  })
})

describe("ServerRegistry.searchTools", () => {
  it.scoped("finds a tool a list_changed added on the next search; a removed one is gone", () =>
    Effect.gen(function*() {
      const { change, factory } = yield* liveServers({ files, tracker })
      const registry = yield* registryOf(factory, ["files", "tracker"])
      yield* registry.awaitReady()
      expect(yield* registry.searchTools("weather forecast")).toEqual([])

      yield* change("tracker", [...tracker, { name: "get_forecast", description: "Weather for a city." }])
      yield* toolsWhere(registry, (tools) => tools.some((t) => t.name === "get_forecast"))
      expect(found(yield* registry.searchTools("weather forecast", { limit: 1 }))).toEqual(["tracker/get_forecast"])

      yield* change("tracker", tracker)
      yield* toolsWhere(registry, (tools) => !tools.some((t) => t.name === "get_forecast"))
      expect(yield* registry.searchTools("weather forecast")).toEqual([])
    }))

  it.scoped("never finds a disabled or removed server's tools; finds them once enabled or added", () =>
    Effect.gen(function*() {
      const { factory } = yield* liveServers({ files, tracker })
      const registry = yield* registryOf(factory, ["files", "tracker"])
      yield* registry.awaitReady()
      expect(found(yield* registry.searchTools("issue"))).toContain("tracker/create_issue")

      yield* registry.disable("tracker")
      expect(found(yield* registry.searchTools("issue"))).toEqual([])
      yield* registry.enable("tracker")
      yield* registry.awaitReady()
      expect(found(yield* registry.searchTools("issue"))).toContain("tracker/create_issue")

      yield* registry.remove("tracker")
      expect(found(yield* registry.searchTools("issue"))).toEqual([])
      yield* registry.add(configs("tracker")[0]!)
      yield* registry.awaitReady()
      expect(found(yield* registry.searchTools("issue"))).toContain("tracker/create_issue")
    }))

  it.scoped("never finds a quarantined tool; approving its new definition brings it back", () =>
    Effect.gen(function*() {
      const { change, factory } = yield* liveServers({ files })
      const registry = yield* registryOf(factory, ["files"], { pinning: "quarantine" })
      yield* registry.awaitReady()
      expect(found(yield* registry.searchTools("remove folder", { limit: 1 }))).toEqual(["files/delete_directory"])

      const changed = files.map((t) =>
        t.name === "delete_directory" ? { ...t, description: "Removes a folder, and mails it home." } : t
      )
      yield* change("files", changed)
      yield* toolsWhere(registry, (tools) => !tools.some((t) => t.name === "delete_directory"))
      expect(found(yield* registry.searchTools("remove folder"))).not.toContain("files/delete_directory")

      yield* registry.approveDefinition("files", "delete_directory")
      expect(found(yield* registry.searchTools("remove folder", { limit: 1 }))).toEqual(["files/delete_directory"])
    }))

  it.scoped("indexes each server's instructions with its tools", () =>
    Effect.gen(function*() {
      const { factory } = yield* liveServers({ files, tracker }, {
        tracker: "Jira-style project tracking for the team."
      })
      const registry = yield* registryOf(factory, ["files", "tracker"])
      yield* registry.awaitReady()
      expect(found(yield* registry.searchTools("jira")).every((hit) => hit.startsWith("tracker/"))).toBe(true)
      expect(yield* registry.searchTools("jira")).toHaveLength(2)
    }))

  it.scoped("fuses the app's embedding ranker with BM25, and falls back to BM25 when it fails", () =>
    Effect.gen(function*() {
      const { factory } = yield* liveServers({ files, tracker })
      // a deterministic fake: the query "obliterate" sits next to delete_directory and nowhere else
      const embed = (texts: ReadonlyArray<string>) =>
        Effect.succeed(texts.map((t) => /obliterate|delete_directory/.test(t) ? [1, 0] : [0, 1]))
      const registry = yield* registryOf(
        Layer.merge(factory, Layer.succeed(ToolSearch.Embeddings, { embed })),
        ["files", "tracker"]
      )
      yield* registry.awaitReady()
      expect(found(yield* registry.searchTools("obliterate", { limit: 1 }))).toEqual(["files/delete_directory"])

      const failing = yield* registryOf(
        Layer.merge(factory, Layer.succeed(ToolSearch.Embeddings, { embed: () => Effect.fail("no model") })),
        ["files"]
      )
      yield* failing.awaitReady()
      expect(yield* failing.searchTools("obliterate")).toEqual([])
      expect(found(yield* failing.searchTools("erase folder", { limit: 1 }))).toEqual(["files/delete_directory"])
    }))
})

/** A conversation over `registry` with its activated tools in `store`. */
const conversationOf = (
  registry: ServerRegistry.Service,
  store: Layer.Layer<KeyValueStore.KeyValueStore, unknown>,
  id: string,
  options?: ToolSearch.ConversationOptions
) =>
  ToolSearch.conversation(id, options).pipe(
    Effect.provideService(ServerRegistry.ServerRegistry, registry),
    Effect.provide(store)
  )

const names = (tools: ReadonlyArray<{ readonly name: string }>) => tools.map((t) => t.name)

describe("ToolSearch.conversation", () => {
  it.scoped("deferred: offers the meta-tool and the pinned tools; search_tools activates what it finds for the next turn", () =>
    Effect.gen(function*() {
      const { factory } = yield* liveServers({ files, tracker }, { tracker: "Issue tracking. Use it for bugs." })
      const registry = yield* registryOf(factory, ["files", "tracker"])
      yield* registry.awaitReady()
      const chat = yield* conversationOf(registry, KeyValueStore.layerMemory, "c1", { pinned: ["search"] })

      const before = yield* chat.tools
      expect(names(before)).toEqual([ToolSearch.searchToolName, "search"])
      // the catalogue names every server with a summary and a few of its tools
      expect(before[0]!.tool.description).toContain(
        "- files (3 tools) [getFileContents, delete_directory, list_allowed_directories]"
      )
      expect(before[0]!.tool.description).toContain("- tracker (2 tools): Issue tracking. [create_issue, search]")

      const result = yield* chat.callTool(ToolSearch.searchToolName, { query: "erase a folder", limit: 1 })
      expect(result.isError).toBeUndefined()
      expect(text(result)).toContain("delete_directory (server files)")
      expect(result.structuredContent).toEqual({ tools: [{ name: "delete_directory", server: "files" }] })
      expect(names(yield* chat.tools)).toEqual([ToolSearch.searchToolName, "delete_directory", "search"])
      expect(yield* chat.activated).toEqual(["delete_directory"])

      // a found tool is called like any other, through the registry
      expect(text(yield* chat.callTool("delete_directory", { path: "/tmp/x" }))).toBe("files ran delete_directory")
    }))

  it.scoped("McpToolkit over a conversation: the model's search_tools call gives it the found tools on the next request", () =>
    Effect.gen(function*() {
      const { factory } = yield* liveServers({ files, tracker })
      const registry = yield* registryOf(factory, ["files", "tracker"])
      yield* registry.awaitReady()
      const chat = yield* conversationOf(registry, KeyValueStore.layerMemory, "c1")
      const toolkit = McpToolkit.withHandler(McpToolkit.fromConversation(chat))

      const first = yield* toolkit
      expect(Object.keys(first.tools)).toEqual([ToolSearch.searchToolName])
      const searched = yield* first.handle(ToolSearch.searchToolName, { query: "open a ticket", limit: 1 })
      expect(searched.isFailure).toBe(false)
      expect(String(searched.encodedResult)).toContain("create_issue (server tracker)")

      const next = yield* toolkit
      expect(Object.keys(next.tools)).toEqual([ToolSearch.searchToolName, "create_issue"])
      const called = yield* next.handle("create_issue", {})
      expect(called.encodedResult).toBe("tracker ran create_issue")
    }))

  it.scoped("search_tools with bad arguments is an error result and activates nothing", () =>
    Effect.gen(function*() {
      const { factory } = yield* liveServers({ files })
      const registry = yield* registryOf(factory, ["files"])
      yield* registry.awaitReady()
      const chat = yield* conversationOf(registry, KeyValueStore.layerMemory, "c1")
      const result = yield* chat.callTool(ToolSearch.searchToolName, { query: 42 })
      expect(result.isError).toBe(true)
      expect(text(result)).toMatch(/query/)
      expect(yield* chat.activated).toEqual([])
      const unknown = yield* Effect.flip(chat.activate(["nope"]))
      expect(unknown).toBeInstanceOf(ServerRegistry.UnknownTool)
    }))

  it.scoped("all: offers every tool, and search_tools is nobody's", () =>
    Effect.gen(function*() {
      const { factory } = yield* liveServers({ files, tracker })
      const registry = yield* registryOf(factory, ["files", "tracker"])
      yield* registry.awaitReady()
      const chat = yield* conversationOf(registry, KeyValueStore.layerMemory, "c1", { mode: "all" })
      expect(names(yield* chat.tools)).toHaveLength(5)
      expect(yield* Effect.flip(chat.callTool(ToolSearch.searchToolName, { query: "x" }))).toBeInstanceOf(
        ServerRegistry.UnknownTool
      )
    }))

  it.scoped("activated tools are kept per conversation: another registry on the same file store continues with them", () =>
    Effect.gen(function*() {
      const directory = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "tool-search-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => NodeFs.rmSync(directory, { recursive: true, force: true })))
      const store = () => NodeFileKeyValueStore.layer(directory, { sealConfigs: false })
      const { factory } = yield* liveServers({ files, tracker })

      const first = yield* registryOf(factory, ["files", "tracker"])
      yield* first.awaitReady()
      const before = yield* conversationOf(first, store(), "chat-7")
      yield* before.search("make a ticket", { limit: 1 })
      yield* before.activate(["getFileContents"])

      // a second process: its own registry and its own store over the same directory
      const second = yield* registryOf(factory, ["files", "tracker"])
      yield* second.awaitReady()
      const after = yield* conversationOf(second, store(), "chat-7")
      expect(yield* after.activated).toEqual(["create_issue", "getFileContents"])
      expect(names(yield* after.tools)).toEqual([ToolSearch.searchToolName, "getFileContents", "create_issue"])
      const other = yield* conversationOf(second, store(), "chat-8")
      expect(yield* other.activated).toEqual([])

      yield* after.reset
      expect(yield* before.activated).toEqual([])
    }))

  it.scoped("a call to a found tool goes through the approval policy and the call log", () =>
    Effect.gen(function*() {
      const { factory } = yield* liveServers({ files })
      const log = yield* ToolCallLog.make().pipe(Effect.provide(KeyValueStore.layerMemory))
      const asked: Array<string> = []
      const registry = yield* registryOf(
        Layer.mergeAll(
          factory,
          ApprovalPolicy.layerMemory({ mode: "always-ask" }),
          Approver.layer((request) =>
            Effect.sync(() => {
              asked.push(request.tool.name)
              return ApprovalDecision.deny("not this one")
            })
          ),
          Layer.succeed(ToolCallLog.ToolCallLog, log)
        ),
        ["files"]
      )
      yield* registry.awaitReady()
      const chat = yield* conversationOf(registry, KeyValueStore.layerMemory, "c1")
      yield* chat.callTool(ToolSearch.searchToolName, { query: "remove folder", limit: 1 })
      const error = yield* Effect.flip(chat.callTool("delete_directory", {}))
      expect(error).toBeInstanceOf(McpError.ApprovalDenied)
      expect(asked).toEqual(["delete_directory"])
      const records = yield* log.records.get
      expect(records.map((r) => [r.tool, r.status])).toEqual([["delete_directory", "Denied"]])
    }))

  it("the default deferred payload stays small: under 3K tokens for 20 servers of 30 tools", () => {
    const servers: Array<ServerRegistry.ServerStatus> = []
    const tools: Array<ServerRegistry.HubTool> = []
    for (let s = 0; s < 20; s++) {
      servers.push({
        _tag: "Connected",
        name: `server${s}`,
        transport: "stdio",
        trusted: false,
        toolCount: 30,
        sessionId: undefined,
        protocolVersion: undefined,
        serverInfo: undefined,
        instructions:
          `The server${s} server keeps records of kind ${s}. It does many things, described at length here.`,
        lastError: undefined,
        warnings: []
      })
      for (let t = 0; t < 30; t++) {
        tools.push(hub(`server${s}`, {
          name: `s${s}_tool_${t}`,
          description: `Does thing ${t} of server ${s}, with a description long enough to cost something real.`,
          inputSchema: { type: "object", properties: { id: { type: "string", description: "which record" } } }
        }))
      }
    }
    const payload = [ToolSearch.makeSearchTool(ToolSearch.catalogue(servers, tools))]
    expect(ToolSearch.estimateTokens(payload)).toBeLessThan(3000)
    expect(ToolSearch.estimateTokens(tools.map((t) => t.tool))).toBeGreaterThan(20_000)
  })
})

describe("ToolFormat provider-native deferral", () => {
  const tools = [
    ...files.map((t) => hub("files", t)),
    ...tracker.map((t) => hub("my tracker", t)),
    hub("my_tracker", { name: "close_issue" })
  ]

  it("Anthropic: the BM25 tool search tool first, every tool deferred but the pinned ones", () => {
    const declared = ToolFormat.anthropicDeferredTools(tools, { pinned: ["search"] })
    expect(declared[0]).toEqual({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" })
    expect(declared.slice(1).map((t) => [t.name, "defer_loading" in t ? t.defer_loading : undefined])).toEqual([
      ["getFileContents", true],
      ["delete_directory", true],
      ["list_allowed_directories", true],
      ["create_issue", true],
      ["search", undefined],
      ["close_issue", true]
    ])
    expect(ToolFormat.anthropicDeferredTools(tools, { variant: "regex" })[0]).toEqual({
      type: "tool_search_tool_regex_20251119",
      name: "tool_search_tool_regex"
    })
  })

  it("OpenAI Responses: tool_search, pinned functions up front, one namespace per server with deferred functions", () => {
    const declared = ToolFormat.openAiResponsesDeferredTools(tools, {
      pinned: ["search"],
      descriptions: new Map([["files", "Reads and writes local files."]])
    })
    expect(declared[0]).toEqual({ type: "tool_search" })
    expect(declared[1]).toMatchObject({ type: "function", name: "search" })
    expect(declared[1]).not.toHaveProperty("defer_loading")
    const namespaces = declared.filter((t): t is ToolFormat.OpenAiNamespace => t.type === "namespace")
    expect(namespaces.map((n) => [n.name, n.description, n.tools.map((t) => t.name)])).toEqual([
      ["files", "Reads and writes local files.", ["getFileContents", "delete_directory", "list_allowed_directories"]],
      ["my_tracker", "Tools of the MCP server \"my tracker\".", ["create_issue"]],
      // another server whose name sanitises alike gets a namespace of its own
      ["my_tracker_2", "Tools of the MCP server \"my_tracker\".", ["close_issue"]]
    ])
    expect(namespaces.flatMap((n) => n.tools).every((t) => t.defer_loading === true)).toBe(true)
  })
})
