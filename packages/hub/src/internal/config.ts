import * as FileSystem from "@effect/platform/FileSystem"
import { ServerAuth } from "@mcp-effect/oauth"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as ServerConfig from "../ServerConfig.js"
import { ConfigFileError, ServerConfigError } from "./errors.js"
import { expandDeep, expandString } from "./expand.js"

const StringMap = Schema.Record({ key: Schema.String, value: Schema.String })

/** Every key of every supported format, each with its type; other keys are ignored. */
const Entry = Schema.Struct({
  type: Schema.optional(Schema.Literal("stdio", "http", "streamable-http", "streamableHttp", "sse", "ws", "websocket")),
  command: Schema.optional(Schema.String),
  args: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(StringMap),
  cwd: Schema.optional(Schema.String),
  url: Schema.optional(Schema.String),
  httpUrl: Schema.optional(Schema.String),
  headers: Schema.optional(StringMap),
  timeout: Schema.optional(Schema.Number.pipe(Schema.positive())),
  disabled: Schema.optional(Schema.Boolean),
  trusted: Schema.optional(Schema.Boolean),
  trust: Schema.optional(Schema.Boolean),
  auth: Schema.optional(Schema.Unknown)
})

const decodeEntry = Schema.decodeUnknownEither(Entry, { errors: "first" })

const knownKeys: ReadonlyArray<string> = Object.keys(Entry.fields)
/** Keys of other clients' formats that are close to one of ours but mean something else. */
const foreignKeys: ReadonlySet<string> = new Set([
  "oauth",
  "envFile",
  "description",
  "includeTools",
  "excludeTools",
  "authProviderType",
  "transport",
  "name",
  "alwaysAllow",
  "autoApprove",
  "disabledTools",
  "enabled"
])

/** Edit distance (insert, delete, replace, swap two neighbours) up to `max`; `max + 1` beyond. */
const distance = (a: string, b: string, max: number): number => {
  if (Math.abs(a.length - b.length) > max) return max + 1
  const rows: Array<Array<number>> = [...Array(a.length + 1)].map((_, i) =>
    [...Array(b.length + 1)].map((_, j) => i === 0 ? j : j === 0 ? i : 0)
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1)
      }
    }
  }
  return rows[a.length][b.length]
}

/** A key that is none of ours but a slip away from one (`comand`): the key we think was meant. */
const misspelt = (entry: object): { readonly key: string; readonly meant: string } | undefined => {
  for (const key of Object.keys(entry)) {
    if (knownKeys.includes(key) || foreignKeys.has(key) || key.length < 3) continue
    const meant = knownKeys.find((known) =>
      distance(key.toLowerCase(), known.toLowerCase(), 2) <= (known.length <= 4 ? 1 : 2)
    )
    if (meant !== undefined) return { key, meant }
  }
  return undefined
}
const validateAuth = Schema.decodeUnknownEither(ServerAuth.ServerAuth, { errors: "first" })

/** The first issue of a parse error as a key path and a reason that never quotes the value. */
const firstIssue = (error: ParseResult.ParseError): { readonly path: string; readonly reason: string } => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  if (issue === undefined) return { path: "", reason: "is not valid" }
  const reason = issue._tag === "Missing"
    ? "is required"
    : `is not valid (${issue.message.replace(/,\s*actual[\s\S]*$/, "").replace(/^Expected/, "expected")})`
  return { path: issue.path.map(String).join("."), reason }
}

const join = (...parts: ReadonlyArray<string>) => parts.filter((p) => p !== "").join(".")

type RemoteTag = Exclude<ServerConfig.Transport["_tag"], "Stdio">

const webSocketSchemes: ReadonlyArray<string> = ["ws:", "wss:"]
const httpSchemes: ReadonlyArray<string> = ["http:", "https:"]
/** A `url` without `type`: its scheme picks the transport. */
const anyScheme: ReadonlyArray<string> = [...httpSchemes, ...webSocketSchemes]

const schemesOf = (tag: RemoteTag | undefined): ReadonlyArray<string> =>
  tag === undefined ? anyScheme : tag === "WebSocket" ? webSocketSchemes : httpSchemes

/** `http:, https:, ws: or wss:` */
const schemeList = (schemes: ReadonlyArray<string>) => `${schemes.slice(0, -1).join(", ")} or ${schemes.at(-1)}`

/** The scheme of a URL as written (lower case, with its colon); `undefined` when it is not written out (`${URL}`). */
const schemeOf = (url: string): string | undefined => /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0].toLowerCase()

/** The transport a `url` names: `tag` when the entry gave a type, else by scheme (Streamable HTTP until known). */
const remoteTag = (tag: RemoteTag | undefined, scheme: string | undefined): RemoteTag =>
  tag ?? (scheme !== undefined && webSocketSchemes.includes(scheme) ? "WebSocket" : "Http")

/** @internal */
export const fromEntry = (
  name: string,
  entry: unknown,
  section = "mcpServers"
): Either.Either<ServerConfig.ServerConfig, ServerConfigError> => {
  const fail = (key: string, reason: string) =>
    Either.left(new ServerConfigError({ server: name, key: join(section, name, key), reason }))
  if (name.trim() === "") return fail("", "a server needs a non-empty name")
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return fail("", "must be an object")
  const slip = misspelt(entry)
  if (slip !== undefined) return fail(slip.key, `is not a known key (did you mean "${slip.meant}"?)`)
  const decoded = decodeEntry(entry)
  if (Either.isLeft(decoded)) {
    const issue = firstIssue(decoded.left)
    return fail(issue.path, issue.reason)
  }
  const raw = decoded.right
  let auth: ServerConfig.ServerConfig["auth"]
  if (raw.auth !== undefined) {
    const checked = validateAuth(raw.auth)
    if (Either.isLeft(checked)) {
      const issue = firstIssue(checked.left)
      return fail(join("auth", issue.path), issue.reason)
    }
    auth = Schema.encodeSync(ServerAuth.ServerAuth)(checked.right)
  }
  const remote = (key: string, url: string, tag: RemoteTag | undefined) => {
    const scheme = schemeOf(url)
    const allowed = schemesOf(tag)
    if (scheme !== undefined && !allowed.includes(scheme)) {
      return fail(key, `must be a URL with scheme ${schemeList(allowed)}`)
    }
    return Either.right<ServerConfig.Transport>({ _tag: remoteTag(tag, scheme), url, headers: raw.headers ?? {} })
  }
  let transport: Either.Either<ServerConfig.Transport, ServerConfigError>
  switch (raw.type) {
    case "stdio": {
      if (raw.command === undefined) return fail("command", "is required for a stdio server")
      if (raw.command.trim() === "") return fail("command", "must not be empty")
      transport = Either.right(stdio(raw.command, raw))
      break
    }
    case "sse": {
      if (raw.url === undefined) return fail("url", "is required for an SSE server")
      transport = remote("url", raw.url, "Sse")
      break
    }
    case "ws":
    case "websocket": {
      if (raw.url === undefined) return fail("url", "is required for a WebSocket server")
      transport = remote("url", raw.url, "WebSocket")
      break
    }
    case "http":
    case "streamable-http":
    case "streamableHttp": {
      const url = raw.url ?? raw.httpUrl
      if (url === undefined) return fail("url", "is required for an HTTP server")
      transport = remote(raw.url !== undefined ? "url" : "httpUrl", url, "Http")
      break
    }
    case undefined: {
      const url = raw.httpUrl ?? raw.url
      const key = raw.httpUrl !== undefined ? "httpUrl" : "url"
      if (raw.command !== undefined && url !== undefined) return fail(key, "cannot be given together with command")
      if (raw.command !== undefined && raw.command.trim() === "") return fail("command", "must not be empty")
      if (raw.command !== undefined) transport = Either.right(stdio(raw.command, raw))
      // gemini-cli's httpUrl is Streamable HTTP
      else if (url !== undefined) transport = remote(key, url, raw.httpUrl !== undefined ? "Http" : undefined)
      else return fail("", "needs a command (stdio) or a url / httpUrl (HTTP, WebSocket)")
    }
  }
  if (Either.isLeft(transport)) return Either.left(transport.left)
  return Either.right({
    name,
    transport: transport.right,
    disabled: raw.disabled ?? false,
    trusted: raw.trusted ?? raw.trust ?? false,
    ...(auth === undefined ? {} : { auth }),
    ...(raw.timeout === undefined ? {} : { timeoutMillis: raw.timeout })
  })
}

const stdio = (command: string, raw: typeof Entry.Type): ServerConfig.Transport => ({
  _tag: "Stdio",
  command,
  args: raw.args ?? [],
  env: raw.env ?? {},
  ...(raw.cwd === undefined ? {} : { cwd: raw.cwd })
})

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** @internal */
export const fromJson = (json: unknown, path?: string): Either.Either<ServerConfig.Parsed, ConfigFileError> => {
  const fileError = (reason: string) =>
    Either.left(new ConfigFileError({ ...(path === undefined ? {} : { path }), reason }))
  if (!isRecord(json)) return fileError("the config must be a JSON object")
  const sections = (["mcpServers", "servers"] as const).filter((key) => json[key] !== undefined)
  if (sections.length === 0) return fileError("the config has neither mcpServers nor servers")
  const servers: Array<ServerConfig.ServerConfig> = []
  const errors: Array<ServerConfigError> = []
  const seen = new Set<string>()
  for (const section of sections) {
    const entries = json[section]
    if (!isRecord(entries)) return fileError(`${section} must be an object of servers by name`)
    for (const [name, entry] of Object.entries(entries)) {
      if (seen.has(name)) {
        errors.push(new ServerConfigError({ server: name, key: join(section, name), reason: "the name is used twice" }))
        continue
      }
      seen.add(name)
      Either.match(fromEntry(name, entry, section), {
        onLeft: (error) => errors.push(error),
        onRight: (server) => servers.push(server)
      })
    }
  }
  return Either.right({ servers, errors })
}

/** @internal */
export const load = (path: string): Effect.Effect<ServerConfig.Parsed, ConfigFileError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* Effect.mapError(
      fs.readFileString(path),
      (error) => new ConfigFileError({ path, reason: `cannot be read (${error.message})` })
    )
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      // the parser's message can quote the file, which may hold secrets
      catch: () => new ConfigFileError({ path, reason: "is not valid JSON" })
    })
    return yield* fromJson(json, path)
  })

const parseUrl = (
  name: string,
  key: string,
  text: string,
  schemes: ReadonlyArray<string>
): Effect.Effect<URL, ServerConfigError> => {
  let url: URL | undefined
  try {
    url = new URL(text)
  } catch {
    url = undefined
  }
  return url !== undefined && schemes.includes(url.protocol)
    ? Effect.succeed(url)
    : Effect.fail(
      new ServerConfigError({ server: name, key, reason: `is not a URL with scheme ${schemeList(schemes)}` })
    )
}

/** The expanded URL, checked; a `url` without type (`Http`) written as `${VAR}` is picked by its expanded scheme. */
const remoteUrl = (
  transport: Exclude<ServerConfig.Transport, { readonly _tag: "Stdio" }>,
  text: string,
  name: string,
  key: string
): Effect.Effect<{ readonly _tag: RemoteTag; readonly url: URL }, ServerConfigError> =>
  transport._tag === "Http"
    ? Effect.map(parseUrl(name, key, text, anyScheme), (url) => ({ _tag: remoteTag(undefined, url.protocol), url }))
    : Effect.map(parseUrl(name, key, text, schemesOf(transport._tag)), (url) => ({ _tag: transport._tag, url }))

/** @internal */
export const resolve = (config: ServerConfig.ServerConfig): Effect.Effect<ServerConfig.Resolved, ServerConfigError> =>
  Effect.gen(function*() {
    const { name } = config
    const key = (...parts: ReadonlyArray<string>) => join(name, ...parts)
    // what the variables of `args` and `env` expanded to: masked in a stdio server's stderr
    const expanded: Array<string> = []
    const expand = (text: string, ...parts: ReadonlyArray<string>) => expandString(text, name, key(...parts))
    const expandSecret = (text: string, ...parts: ReadonlyArray<string>) =>
      expandString(text, name, key(...parts), expanded)
    const expandMap = (map: Readonly<Record<string, string>>, what: string) =>
      Effect.all(Object.fromEntries(Object.entries(map).map(([k, v]) => [k, expandSecret(v, what, k)] as const)))
    const t = config.transport
    const transport: ServerConfig.Resolved["transport"] = t._tag === "Stdio"
      ? {
        _tag: "Stdio",
        command: yield* Effect.filterOrFail(
          expand(t.command, "command"),
          (command) => command.trim() !== "",
          () => new ServerConfigError({ server: name, key: key("command"), reason: "is empty once expanded" })
        ),
        args: yield* Effect.forEach(t.args, (arg, i) => expandSecret(arg, "args", String(i))),
        env: yield* expandMap(t.env, "env"),
        cwd: t.cwd === undefined ? undefined : yield* expand(t.cwd, "cwd"),
        secrets: expanded
      }
      : {
        ...yield* remoteUrl(t, yield* expand(t.url, "url"), name, key("url")),
        headers: Object.fromEntries(
          Object.entries(yield* expandMap(t.headers, "headers")).map(([k, v]) => [k, Redacted.make(v)] as const)
        )
      }
    const authRaw = config.auth === undefined ? { type: "none" } : yield* expandDeep(config.auth, name, key("auth"))
    const auth = yield* Schema.decodeUnknown(ServerAuth.ServerAuth)(authRaw).pipe(
      Effect.mapError((error) => {
        const issue = firstIssue(error)
        return new ServerConfigError({ server: name, key: key("auth", issue.path), reason: issue.reason })
      })
    )
    return {
      name,
      trusted: config.trusted,
      transport,
      auth,
      timeout: config.timeoutMillis === undefined ? undefined : Duration.millis(config.timeoutMillis)
    }
  })
