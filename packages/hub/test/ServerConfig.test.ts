import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as ServerConfig from "../src/ServerConfig.js"

const parse = (json: unknown) => Either.getOrThrow(ServerConfig.fromJson(json))
const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("ServerConfig formats", () => {
  it("reads Claude Desktop / Cursor entries: stdio and url", () => {
    const { errors, servers } = parse({
      mcpServers: {
        files: { command: "npx", args: ["-y", "server"], env: { A: "1" }, cwd: "/tmp" },
        remote: { url: "https://example.com/mcp", headers: { "X-Team": "core" } }
      }
    })
    expect(errors).toEqual([])
    expect(servers).toEqual([
      {
        name: "files",
        transport: { _tag: "Stdio", command: "npx", args: ["-y", "server"], env: { A: "1" }, cwd: "/tmp" },
        disabled: false,
        trusted: false
      },
      {
        name: "remote",
        transport: { _tag: "Http", url: "https://example.com/mcp", headers: { "X-Team": "core" } },
        disabled: false,
        trusted: false
      }
    ])
  })

  it("reads VS Code entries with type stdio / http / sse", () => {
    const { errors, servers } = parse({
      servers: {
        a: { type: "stdio", command: "node", args: ["a.js"] },
        b: { type: "http", url: "http://127.0.0.1:1/mcp" },
        c: { type: "sse", url: "http://127.0.0.1:1/sse" }
      }
    })
    expect(errors).toEqual([])
    expect(servers.map((s) => [s.name, s.transport._tag])).toEqual([["a", "Stdio"], ["b", "Http"], ["c", "Sse"]])
    expect(servers.map(ServerConfig.transportKind)).toEqual(["stdio", "http", "sse"])
  })

  it("reads WebSocket entries: a ws: / wss: url picks the transport, or type ws / websocket", () => {
    const { errors, servers } = parse({
      mcpServers: {
        plain: { url: "ws://127.0.0.1:1/mcp", headers: { Authorization: "Bearer ${T}" } },
        secure: { url: "WSS://example.com/mcp" },
        typed: { type: "ws", url: "${WS_URL}" },
        vscode: { type: "websocket", url: "wss://example.com/mcp" },
        http: { url: "https://example.com/mcp" }
      }
    })
    expect(errors).toEqual([])
    expect(servers[0]!.transport).toEqual({
      _tag: "WebSocket",
      url: "ws://127.0.0.1:1/mcp",
      headers: { Authorization: "Bearer ${T}" }
    })
    expect(servers.map(ServerConfig.transportKind)).toEqual([
      "websocket",
      "websocket",
      "websocket",
      "websocket",
      "http"
    ])
  })

  it("a url scheme the transport does not speak is an error naming the schemes allowed, never the url", () => {
    const { errors, servers } = parse({
      mcpServers: {
        ftp: { url: "ftp://secret-host/mcp" },
        wsAsHttp: { type: "http", url: "ws://secret-host/mcp" },
        httpAsWs: { type: "ws", url: "https://secret-host/mcp" },
        wsAsSse: { type: "sse", url: "wss://secret-host/sse" },
        gemini: { httpUrl: "ws://secret-host/mcp" }
      }
    })
    expect(servers).toEqual([])
    expect(errors.map((e) => [e.key, e.reason])).toEqual([
      ["mcpServers.ftp.url", "must be a URL with scheme http:, https:, ws: or wss:"],
      ["mcpServers.wsAsHttp.url", "must be a URL with scheme http: or https:"],
      ["mcpServers.httpAsWs.url", "must be a URL with scheme ws: or wss:"],
      ["mcpServers.wsAsSse.url", "must be a URL with scheme http: or https:"],
      ["mcpServers.gemini.httpUrl", "must be a URL with scheme http: or https:"]
    ])
    for (const error of errors) expect(error.message).not.toContain("secret-host")
  })

  it("reads gemini-cli entries: httpUrl, timeout, trust", () => {
    const { servers } = parse({ mcpServers: { g: { httpUrl: "https://example.com/mcp", timeout: 1500, trust: true } } })
    expect(servers[0]).toEqual({
      name: "g",
      transport: { _tag: "Http", url: "https://example.com/mcp", headers: {} },
      disabled: false,
      trusted: true,
      timeoutMillis: 1500
    })
  })

  it("keeps disabled, trusted and auth (in its file form, unexpanded)", () => {
    const { servers } = parse({
      mcpServers: {
        x: {
          url: "https://example.com/mcp",
          disabled: true,
          trusted: true,
          auth: { type: "bearer", token: "${TOKEN}" }
        }
      }
    })
    expect(servers[0]).toMatchObject({ disabled: true, trusted: true, auth: { type: "bearer", token: "${TOKEN}" } })
  })

  it("gives one error per bad server, naming the server and the key, and keeps the good ones", () => {
    const { errors, servers } = parse({
      mcpServers: {
        good: { command: "node" },
        badArgs: { command: "node", args: "not-an-array" },
        badEnv: { command: "node", env: { TOKEN: 42 } },
        nothing: { cwd: "/tmp" },
        both: { command: "node", url: "http://x" },
        badType: { type: "grpc", url: "grpc://x" },
        badAuth: { url: "https://x", auth: { type: "bearer" } },
        notObject: "node server.js"
      },
      servers: { good: { command: "other" }, vsNoCommand: { type: "stdio", url: "http://x" } }
    })
    expect(servers.map((s) => s.name)).toEqual(["good"])
    expect(errors.map((e) => [e.server, e.key])).toEqual([
      ["badArgs", "mcpServers.badArgs.args"],
      ["badEnv", "mcpServers.badEnv.env.TOKEN"],
      ["nothing", "mcpServers.nothing"],
      ["both", "mcpServers.both.url"],
      ["badType", "mcpServers.badType.type"],
      ["badAuth", "mcpServers.badAuth.auth.token"],
      ["notObject", "mcpServers.notObject"],
      ["good", "servers.good"],
      ["vsNoCommand", "servers.vsNoCommand.command"]
    ])
    expect(errors[1]!.message).toBe(`server "badEnv": mcpServers.badEnv.env.TOKEN: is not valid (expected string)`)
    expect(errors[5]!.reason).toBe("is required")
    // a reason never quotes the value it rejects
    for (const error of errors) expect(error.message).not.toMatch(/42|grpc|not-an-array|server\.js/)
  })

  it("an empty or blank command is an error of that server", () => {
    const parsed = parse({
      mcpServers: { a: { command: "" }, b: { type: "stdio", command: "  " }, c: { command: "node" } }
    })
    expect(parsed.servers.map((s) => s.name)).toEqual(["c"])
    expect(parsed.errors.map((e) => [e.key, e.reason])).toEqual([
      ["mcpServers.a.command", "must not be empty"],
      ["mcpServers.b.command", "must not be empty"]
    ])
  })

  it("rejects a file without servers as a whole", () => {
    expect(Either.isLeft(ServerConfig.fromJson({ other: {} }))).toBe(true)
    expect(Either.isLeft(ServerConfig.fromJson([]))).toBe(true)
    expect(Either.isLeft(ServerConfig.fromJson({ mcpServers: [] }))).toBe(true)
  })

  it("round-trips through its schema (the stored form)", () => {
    const { servers } = parse({
      mcpServers: {
        a: { command: "node", env: { X: "${X}" } },
        b: { url: "https://x/mcp", auth: { type: "api-key", key: "k" } }
      }
    })
    const codec = Schema.parseJson(ServerConfig.ServerConfig)
    for (const server of servers) {
      const stored = Schema.encodeSync(codec)(server)
      expect(Schema.decodeUnknownSync(codec)(stored)).toEqual(server)
    }
    expect(Schema.encodeSync(codec)(servers[0]!)).toContain("${X}")
  })
})

describe("ServerConfig.resolve", () => {
  const one = (entry: unknown) => parse({ mcpServers: { s: entry } }).servers[0]!

  it.effect("expands ${VAR} and ${VAR:-default} through the ConfigProvider, everywhere", () =>
    Effect.gen(function*() {
      const stdio = yield* ServerConfig.resolve(
        one({
          command: "${BIN}",
          args: ["--dir", "${DIR:-/tmp}", "x${EMPTY:-y}z"],
          env: { TOKEN: "${TOKEN}" },
          cwd: "${DIR:-/}"
        })
      ).pipe(withEnv({ BIN: "node", TOKEN: "t0k", EMPTY: "" }))
      expect(stdio.transport).toEqual({
        _tag: "Stdio",
        command: "node",
        args: ["--dir", "/tmp", "xyz"],
        env: { TOKEN: "t0k" },
        cwd: "/",
        // what the variables of args and env expanded to (defaults are no secrets), masked in the server's stderr
        secrets: ["t0k"]
      })
      const http = yield* ServerConfig.resolve(
        one({
          url: "${BASE}/mcp",
          headers: { Authorization: "Bearer ${TOKEN}" },
          auth: { type: "bearer", token: "${TOKEN}" },
          timeout: 2500
        })
      ).pipe(withEnv({ BASE: "http://127.0.0.1:9", TOKEN: "secret" }))
      expect(http.transport._tag).toBe("Http")
      if (http.transport._tag === "Stdio") return
      expect(http.transport.url.href).toBe("http://127.0.0.1:9/mcp")
      expect(Redacted.value(http.transport.headers.Authorization!)).toBe("Bearer secret")
      expect(String(http.transport.headers.Authorization)).not.toContain("secret")
      expect(http.auth.type).toBe("bearer")
      if (http.auth.type === "bearer") expect(Redacted.value(http.auth.token)).toBe("secret")
      expect(http.timeout).toEqual(Duration.millis(2500))
    }))

  it.effect("a variable that is not set fails, naming the server, the key and the variable", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        ServerConfig.resolve(one({ command: "node", env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" } })).pipe(withEnv({}))
      )
      expect(error).toBeInstanceOf(ServerConfig.ServerConfigError)
      expect(error.message).toBe(`server "s": s.env.GITHUB_TOKEN: \${GITHUB_TOKEN} is not set`)
    }))

  it.effect("a URL that is not http(s) or ws(s) after expansion fails with its key and the schemes allowed", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        ServerConfig.resolve(one({ url: "${U}" })).pipe(withEnv({ U: "file:///etc/passwd" }))
      )
      expect(error.key).toBe("s.url")
      expect(error.reason).toBe("is not a URL with scheme http:, https:, ws: or wss:")
      expect(error.message).not.toContain("passwd")
      const typed = yield* Effect.flip(
        ServerConfig.resolve(one({ type: "ws", url: "${U}" })).pipe(withEnv({ U: "https://example.com/mcp" }))
      )
      expect(typed.reason).toBe("is not a URL with scheme ws: or wss:")
    }))

  it.effect("${__proto__}, ${constructor} and other Object.prototype names are unset variables", () =>
    Effect.gen(function*() {
      for (const variable of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
        const error = yield* Effect.flip(ServerConfig.resolve(one({ command: "node", args: [`\${${variable}}`] })))
        expect(error.reason).toBe(`\${${variable}} is not set`)
        const defaulted = yield* ServerConfig.resolve(one({ command: "node", args: [`\${${variable}:-d}`] }))
        expect(defaulted.transport._tag === "Stdio" && defaulted.transport.args).toEqual(["d"])
      }
    }))

  it.effect("a command that is empty once expanded fails with its key", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(ServerConfig.resolve(one({ command: "${BIN}" })).pipe(withEnv({ BIN: " " })))
      expect(error).toMatchObject({ key: "s.command", reason: "is empty once expanded" })
    }))

  it.effect("a url without type written as ${VAR} is picked by its expanded scheme", () =>
    Effect.gen(function*() {
      const resolved = yield* ServerConfig.resolve(one({ url: "${U}", headers: { "X-Key": "${K}" } })).pipe(
        withEnv({ U: "wss://example.com/mcp", K: "k3y" })
      )
      expect(resolved.transport._tag).toBe("WebSocket")
      if (resolved.transport._tag === "Stdio") return
      expect(resolved.transport.url.href).toBe("wss://example.com/mcp")
      expect(Redacted.value(resolved.transport.headers["X-Key"]!)).toBe("k3y")
    }))
})

describe("ServerConfig.load", () => {
  const write = (text: string) => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "hub-config-"))
    const file = Path.join(dir, "mcp.json")
    Fs.writeFileSync(file, text)
    return file
  }

  it.effect("reads a file", () =>
    Effect.gen(function*() {
      const parsed = yield* ServerConfig.load(write(JSON.stringify({ mcpServers: { a: { command: "node" } } })))
      expect(parsed.servers.map((s) => s.name)).toEqual(["a"])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a file that is not JSON fails typed, without quoting it", () =>
    Effect.gen(function*() {
      const file = write(`{ "mcpServers": { "a": { "env": { "TOKEN": "hunter2" } } `)
      const error = yield* Effect.flip(ServerConfig.load(file))
      expect(error).toBeInstanceOf(ServerConfig.ConfigFileError)
      expect(error.message).toBe(`${file}: is not valid JSON`)
      const missing = yield* Effect.flip(ServerConfig.load(`${file}.missing`))
      expect(missing.reason).toMatch(/cannot be read/)
    }).pipe(Effect.provide(NodeContext.layer)))
})
