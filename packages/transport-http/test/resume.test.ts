import { FetchHttpClient } from "@effect/platform"
import { NodeKeyValueStore } from "@effect/platform-node"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { ClientSession, type JsonRpc, McpClient, SessionStore } from "@mcp-effect/core"
import { HttpTransport } from "@mcp-effect/transport-http"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as esbuild from "esbuild"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { resource, waitFor } from "./fixtures/harness.js"
import { type SdkServer, startSdkServer } from "./fixtures/sdkServer.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
const script = path.join(root, "packages/transport-http/test/fixtures/resumingClient.ts")

/**
 * The client bundled once (a child that loads the TypeScript sources module by module starts
 * slowly on a busy machine), into a directory removed at the end of the file.
 */
let bundled: Promise<string> | undefined
const bundleDir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-resuming-client-"))
afterAll(() => fs.rmSync(bundleDir, { recursive: true, force: true }))
const bundle = Effect.promise(() =>
  bundled ??= esbuild.build({
    entryPoints: [script],
    bundle: true,
    platform: "node",
    format: "cjs",
    conditions: ["@mcp-effect/source"],
    outfile: path.join(bundleDir, "resumingClient.cjs"),
    logLevel: "silent"
  }).then(() => path.join(bundleDir, "resumingClient.cjs"))
)

/** A directory for a Node file store, removed with the scope. */
const storeDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "mcp-sessions-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const fileStore = (dir: string) => SessionStore.layer().pipe(Layer.provide(NodeKeyValueStore.layerFileSystem(dir)))

/** The session stored for the server named "fixture" at `url` (sessions are kept per name and URL). */
const stored = (dir: string, url: string) =>
  Effect.flatMap(SessionStore.SessionStore, (store) => store.get({ name: "fixture", endpoint: url })).pipe(
    Effect.provide(fileStore(dir))
  )

/** The client process of `fixtures/resumingClient.ts`, killed (SIGKILL: no DELETE, no cleanup) by `crash`. */
const startClientProcess = (url: string, dir: string) =>
  Effect.acquireRelease(
    Effect.map(bundle, (file) => {
      // node itself runs the client: SIGKILL reaches it (a CLI wrapper would leave it running)
      const child = spawn(process.execPath, [file, url, dir], {
        cwd: root,
        stdio: ["ignore", "pipe", "inherit"]
      })
      const lines: Array<Record<string, unknown>> = []
      const waiting = new Set<() => void>()
      let buffered = ""
      child.stdout.setEncoding("utf8")
      child.stdout.on("data", (chunk: string) => {
        buffered += chunk
        const parts = buffered.split("\n")
        buffered = parts.pop()!
        // the process's own logs go to stdout too: only the JSON lines are events
        for (const part of parts) if (part.startsWith("{")) lines.push(JSON.parse(part))
        for (const wake of waiting) wake()
      })
      let gone = false
      const exited = new Promise<void>((resolve) =>
        child.on("exit", () => {
          gone = true
          for (const wake of waiting) wake()
          resolve()
        })
      )
      return {
        lines,
        /** Waits (as long as the test may take) for a line the client prints. */
        line: (matches: (line: Record<string, unknown>) => boolean) =>
          Effect.async<void>((resume) => {
            const check = () => {
              const found = lines.some(matches)
              if (!found && !gone) return
              waiting.delete(check)
              resume(found ? Effect.void : Effect.dieMessage("the client process exited"))
            }
            waiting.add(check)
            check()
            return Effect.sync(() => waiting.delete(check))
          }),
        crash: Effect.promise(() => {
          child.kill("SIGKILL")
          return exited
        }),
        kill: () => child.kill("SIGKILL")
      }
    }),
    (child) => Effect.sync(child.kill)
  )

/** Runs a client process until it holds a session whose GET stream has delivered `one`, then kills it. */
const crashAfterOneEvent = (server: SdkServer, dir: string) =>
  Effect.gen(function*() {
    const first = yield* startClientProcess(server.url, dir)
    yield* first.line((l) => l.ready === true)
    yield* waitFor("the GET stream", () => server.requests.some((r) => r.method === "GET"))
    yield* Effect.promise(() => server.notifyAll("one"))
    yield* first.line((l) => l.log === "one")
    // the id of the event carrying `one` is in the store before the crash
    for (let i = 0; i < 1000; i++) {
      // the file may be read half-written
      const record = yield* Effect.orElseSucceed(stored(dir, server.url), () => Option.none())
      if (Option.isSome(record) && record.value.lastEventIds.get === server.lastGetEventId()) break
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    }
    const record = yield* Effect.flatten(stored(dir, server.url))
    expect(record.lastEventIds.get).toBe(server.lastGetEventId())
    expect(record.loggingLevel).toBe("info")
    yield* first.crash
    return Redacted.value(record.sessionId)
  })

/** An in-process client on the store in `dir` that records every log message it sees, resumed ones too. */
const resumingClient = (url: string, dir: string, logs: Array<unknown>) =>
  McpClient.layerOnSession().pipe(
    Layer.provide(
      ClientSession.layer({
        clientInfo: { name: "resuming-client", version: "1.0.0" },
        server: "fixture",
        onNotification: (n: JsonRpc.Notification) =>
          n.method === "notifications/message" ? Effect.sync(() => void logs.push(n.params?.data)) : undefined
      })
    ),
    Layer.provide(HttpTransport.layer({ url })),
    Layer.provide(fileStore(dir)),
    Layer.provide(FetchHttpClient.layer)
  )

const initializes = (server: SdkServer) =>
  server.requests.filter((r) => r.method === "POST" && r.body?.method === "initialize").length

describe("sessions that survive a restart", () => {
  it.scopedLive(
    "a killed client's session is resumed: no second initialize, the missed events once",
    () =>
      Effect.gen(function*() {
        const server = yield* resource(() => startSdkServer("stateful"))
        const dir = yield* storeDir
        const sessionId = yield* crashAfterOneEvent(server, dir)
        const afterCrash = server.requests.length
        // sent while no client is connected: the server's event store keeps them
        yield* Effect.promise(() => server.notifyAll("two"))
        yield* Effect.promise(() => server.notifyAll("three"))

        const logs: Array<unknown> = []
        const scope = yield* Scope.make()
        const context = yield* Layer.buildWithScope(resumingClient(server.url, dir, logs), scope)
        const client = Context.get(context, McpClient.McpClient)
        const init = yield* client.initialized
        expect(init.restored).toEqual({ subscriptions: [], loggingLevel: "info" })
        expect(init.serverInfo.name).toBe("sdk-fixture")
        expect((yield* client.listTools).map((t) => t.name)).toContain("echo")
        yield* waitFor("the missed events", () => logs.includes("three"))
        yield* Effect.promise(() => server.notifyAll("four"))
        yield* waitFor("a live event", () => logs.includes("four"))
        expect(logs).toEqual(["two", "three", "four"])

        expect(initializes(server)).toBe(1)
        const resumed = server.requests.slice(afterCrash)
        expect(resumed.length).toBeGreaterThan(0)
        for (const request of resumed) expect(request.headers["mcp-session-id"]).toBe(sessionId)
        const get = resumed.find((r) => r.method === "GET")!
        expect(get.headers["last-event-id"]).toBeDefined()
        expect(get.headers["mcp-protocol-version"]).toBe("2025-11-25")

        // closing on purpose ends the session on the server and forgets it here
        yield* Scope.close(scope, Exit.void)
        expect(server.requests.at(-1)?.method).toBe("DELETE")
        expect(yield* stored(dir, server.url)).toEqual(Option.none())
      }),
    60_000
  )

  it.scopedLive("a server that forgot the session gets a new one", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("stateful"))
      const dir = yield* storeDir
      const oldId = yield* crashAfterOneEvent(server, dir)
      yield* Effect.promise(() => server.forget())

      const logs: Array<unknown> = []
      const client = Context.get(
        yield* Layer.build(resumingClient(server.url, dir, logs)),
        McpClient.McpClient
      )
      const init = yield* client.initialized
      expect(init.restored).toBeUndefined()
      expect(initializes(server)).toBe(2)
      expect((yield* client.listTools).map((t) => t.name)).toContain("echo")
      const record = yield* Effect.flatten(stored(dir, server.url))
      expect(Redacted.value(record.sessionId)).not.toBe(oldId)
      expect(server.requests.at(-1)?.headers["mcp-session-id"]).toBe(Redacted.value(record.sessionId))
    }), 60_000)

  it.scopedLive("a server without sessions (stateless) leaves nothing to resume", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("stateless"))
      const dir = yield* storeDir
      const client = Context.get(yield* Layer.build(resumingClient(server.url, dir, [])), McpClient.McpClient)
      yield* client.listTools
      expect(yield* stored(dir, server.url)).toEqual(Option.none())
    }))
})
