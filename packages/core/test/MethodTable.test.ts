import { describe, expect, it } from "@effect/vitest"
import * as Era2025 from "../src/internal/era/era2025.js"
import * as Era2026 from "../src/internal/era/era2026.js"
import * as Methods from "../src/internal/methods.js"
import * as McpSchema from "../src/McpSchema.js"
import { clientInfo } from "./utils.js"

const MODERN = McpSchema.MODERN_PROTOCOL_VERSION
const LEGACY = McpSchema.LATEST_PROTOCOL_VERSION
const Codecs = { of: (version: string) => version === MODERN ? Era2026.codec : Era2025.codec }
const envelope = { version: MODERN, identity: { clientInfo, capabilities: {} }, logLevel: undefined }

describe("the method table", () => {
  it("reads are replayed on a new connection; calls, cancels and updates are not", () => {
    expect([...Methods.replayable].sort()).toEqual([
      "completion/complete",
      "logging/setLevel",
      "ping",
      "prompts/get",
      "prompts/list",
      "resources/list",
      "resources/read",
      "resources/subscribe",
      "resources/templates/list",
      "resources/unsubscribe",
      "server/discover",
      "subscriptions/listen",
      "tasks/get",
      "tasks/list",
      "tasks/result",
      "tools/list"
    ])
  })

  it("progress resets the idle timeout of the long-running methods only", () => {
    expect([...Methods.progressResets].sort()).toEqual([
      "prompts/get",
      "resources/read",
      "sampling/createMessage",
      "tasks/result",
      "tools/call"
    ])
  })

  it("a method the table does not know exists in every era and has no rounds", () => {
    expect(Methods.lookup("x-vendor/thing")).toBeUndefined()
    expect(Codecs.of(MODERN).exists("x-vendor/thing")).toBe(true)
    expect(Codecs.of(MODERN).classify("x-vendor/thing", { resultType: "input_required" })).toBe("complete")
  })
})

describe("the era codecs", () => {
  it("each era has its own methods: ping and logging/setLevel in 2025, server/discover and subscriptions/listen in 2026", () => {
    const legacy = Codecs.of(LEGACY)
    const modern = Codecs.of(MODERN)
    expect([legacy.era, modern.era]).toEqual(["legacy", "modern"])
    for (const method of ["ping", "logging/setLevel", "tasks/list", "tasks/result", "resources/subscribe"]) {
      expect([method, legacy.exists(method), modern.exists(method)]).toEqual([method, true, false])
    }
    for (const method of ["server/discover", "subscriptions/listen", "tasks/update"]) {
      expect([method, legacy.exists(method), modern.exists(method)]).toEqual([method, false, true])
    }
    expect(legacy.ping.method).toBe("ping")
    expect(modern.ping.method).toBe("server/discover")
  })

  it("the 2026 codec puts its envelope on every request but initialize, with the log level once one is set", () => {
    const modern = Codecs.of(MODERN)
    expect(modern.decorate("initialize", { protocolVersion: LEGACY }, envelope)).toEqual({ protocolVersion: LEGACY })
    const discover = modern.decorate("server/discover", {}, { ...envelope, logLevel: "error" })
    expect(discover?._meta).toEqual({
      [McpSchema.MetaKey.ProtocolVersion]: MODERN,
      [McpSchema.MetaKey.ClientInfo]: clientInfo,
      [McpSchema.MetaKey.ClientCapabilities]: {},
      [McpSchema.MetaKey.LogLevel]: "error"
    })
    // the caller's _meta (a progress token) is kept
    const call = modern.decorate("tools/call", { name: "x", _meta: { progressToken: 1 } }, envelope)
    expect(call?._meta).toMatchObject({ progressToken: 1, [McpSchema.MetaKey.ProtocolVersion]: MODERN })
    expect(call?._meta).not.toHaveProperty(McpSchema.MetaKey.LogLevel)
    // the 2025 codec sends params as they are
    expect(Codecs.of(LEGACY).decorate("tools/list", { cursor: "a" }, envelope)).toEqual({ cursor: "a" })
  })

  it("a result asks for input or is a task handle only where the method's row allows it", () => {
    const modern = Codecs.of(MODERN)
    expect(modern.classify("tools/call", { resultType: "task", taskId: "t" })).toBe("task")
    expect(modern.classify("prompts/get", { resultType: "task", taskId: "t" })).toBe("complete")
    expect(modern.classify("prompts/get", { resultType: "input_required" })).toBe("input_required")
    expect(modern.classify("tools/call", { content: [] })).toBe("complete")
    expect(Codecs.of(LEGACY).classify("tools/call", { resultType: "input_required" })).toBe("complete")
  })
})
