// Two real app processes sharing one Redis: the OAuth tokens one process has are the other's too,
// an expired token is refreshed once for both (the refresh lock), and an "approve always" given in
// one process lets the other call without asking.
import { describe, expect, it } from "@effect/vitest"
import { ServerConfig, ServerRegistry } from "@mcp-effect/hub"
import { NodeHub } from "@mcp-effect/hub/node"
import { TokenStore } from "@mcp-effect/oauth"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { browserFor, protectedServer } from "../../oauth/test/fixtures/harness.js"
import * as RedisClient from "../src/RedisClient.js"
import * as RedisKeyValueStore from "../src/RedisKeyValueStore.js"
import * as RedisTokenStore from "../src/RedisTokenStore.js"
import { redisServer } from "./fixtures/redisServer.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const sealKey = "q4b7S8kX1m2N3p4Q5r6S7t8U9v0W1x2Y3z4A5b6C7d8="

interface AppProcess {
  readonly send: (line: string) => Effect.Effect<void>
  readonly next: Effect.Effect<Record<string, unknown>>
}

/** Starts an app process; its stdout lines are JSON reports, read one at a time. */
const appProcess = (env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      spawn(Path.join(root, "node_modules/.bin/tsx"), [
        "--conditions=@mcp-effect/source",
        "packages/kv-redis/test/fixtures/appProcess.ts"
      ], {
        cwd: root,
        env: { ...process.env, ...env },
        stdio: ["pipe", "pipe", "pipe"]
      }) as ChildProcessWithoutNullStreams
    ),
    (child) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGKILL")
      })
  ).pipe(Effect.map((child): AppProcess => {
    const reports: Array<Record<string, unknown>> = []
    const waiting: Array<(report: Record<string, unknown>) => void> = []
    let buffer = ""
    let stderr = ""
    child.stderr.on("data", (chunk) => stderr += chunk)
    child.stdout.on("data", (chunk) => {
      buffer += chunk
      let newline = buffer.indexOf("\n")
      while (newline >= 0) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + 1)
        newline = buffer.indexOf("\n")
        if (!line.startsWith("{")) continue
        const report = JSON.parse(line) as Record<string, unknown>
        const waiter = waiting.shift()
        if (waiter) waiter(report)
        else reports.push(report)
      }
    })
    child.on("exit", (code) => {
      for (const waiter of waiting.splice(0)) waiter({ step: "exited", code, stderr })
    })
    return {
      send: (line) => Effect.sync(() => void child.stdin.write(`${line}\n`)),
      next: Effect.async((resume) => {
        const report = reports.shift()
        if (report) return resume(Effect.succeed(report))
        waiting.push((r) => resume(Effect.succeed(r)))
      })
    }
  }))

describe("two app processes on one Redis", () => {
  it.scopedLive("share tokens (one refresh for both) and approvals", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const { auth, mcp } = yield* protectedServer()
      const Redis = RedisClient.layer({ url: redis.url })
      const Tokens = RedisTokenStore.layer({ key: Redacted.make(sealKey), prefix: "app:" }).pipe(Layer.provide(Redis))
      const guarded = Either.getOrThrow(ServerConfig.fromEntry("guarded", { url: mcp.url, auth: { type: "oauth2" } }))

      // this process signs in once (a person at the browser), leaving tokens in Redis
      yield* Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(NodeHub.layer({
          config: [guarded],
          storage: RedisKeyValueStore.layer({ prefix: "app:" }).pipe(Layer.provide(Redis)),
          tokens: Tokens,
          authorizer: browserFor(auth),
          reconnect: { schedule: Schedule.stop }
        }))
        const registry = context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service
        yield* registry.servers.changes.pipe(
          Stream.filter((list) => list[0]!._tag === "Connected" && list[0]!.toolCount > 0),
          Stream.runHead
        )
      }))
      expect(auth.grants).toEqual(["authorization_code"])

      // the access token expires: both processes will find it so when they start
      yield* Effect.scoped(Effect.gen(function*() {
        const tokens = (yield* Layer.build(Tokens)).unsafeMap.get(TokenStore.TokenStore.key) as TokenStore.Service
        const key = { resource: mcp.resource, issuer: auth.issuer }
        const stored = Option.getOrThrow(yield* tokens.getTokens(key))
        expect(stored.refreshToken).toBeDefined()
        yield* tokens.setTokens(key, { ...stored, expiresAt: Date.now() - 3_600_000 })
      }))

      const env = { REDIS_URL: redis.url, MCP_URL: mcp.url, SEAL_KEY: sealKey }
      const a = yield* appProcess({ ...env, APPROVE: "always" })
      const b = yield* appProcess({ ...env, APPROVE: "deny" })
      expect(yield* a.next).toEqual({ step: "ready" })
      expect(yield* b.next).toEqual({ step: "ready" })
      yield* Effect.all([a.send("go"), b.send("go")])
      const [connectedA, connectedB] = yield* Effect.all([a.next, b.next], { concurrency: 2 })
      expect(connectedA).toMatchObject({ step: "connected", status: "Connected" })
      expect(connectedB).toMatchObject({ step: "connected", status: "Connected" })
      // one refresh for both processes; with rotation, a second one would have been refused
      expect(auth.grants).toEqual(["authorization_code", "refresh_token"])

      // A's person approves "always"; B's would refuse, but is never asked
      yield* a.send("call")
      expect(yield* a.next).toMatchObject({ step: "called", ok: true, asked: 1 })
      yield* b.send("call")
      expect(yield* b.next).toMatchObject({ step: "called", ok: true, asked: 0 })
      // both called with the same (refreshed) access token
      const lastTwo = mcp.tokens.slice(-2)
      expect(lastTwo[0]).toBeDefined()
      expect(lastTwo[0]).toBe(lastTwo[1])
      yield* Effect.all([a.send("exit"), b.send("exit")])
    }), { timeout: 120_000 })
})
