/**
 * Captures the tool-search corpus: starts published MCP servers from npm at
 * pinned versions, lists their tools through our own `McpClient` over
 * `NodeStdioTransport`, and writes one JSON per server to
 * `bench/fixtures/tool-corpus/<server>.json`.
 *
 * Run by hand (not by CI; it needs the npm registry):
 *
 * ```
 * npx tsx --conditions=@mcp-effect/source bench/toolSearch/capture.ts [--dir /tmp/mcp-corpus] [--only github,slack]
 * ```
 *
 * Packages are installed with `--ignore-scripts` into `--dir` (outside the
 * repo), so no browser or binary download runs. Servers that insist on a
 * credential get an obviously fake value: listing tools never calls the
 * service, and no real secret is ever needed or used. The Redis server
 * connects before it answers, so the capture starts a throwaway
 * `redis-server` on loopback for it.
 *
 * Tried and left out (Node 20, no credentials, no install scripts): mysql
 * (`@benborla29/mcp-server-mysql@2.0.9`) and stripe (`@stripe/mcp@0.3.3`)
 * exit or hang without a reachable service; supabase
 * (`@supabase/mcp-server-supabase@0.13.0`) and heroku
 * (`@heroku/mcp-server@1.2.8`) fail to load against the SDK npm installs for
 * them; azure-devops (`@azure-devops/mcp@2.10.0`) needs the native `keytar`
 * build; cloudflare (`@cloudflare/mcp-server-cloudflare@0.2.0`) exits without
 * a login; `@neondatabase/mcp-server-neon@0.6.5`, `@doist/todoist-ai@9.0.0`
 * and `@atlassian-dc-mcp/*@0.34.0` do not install on Node 20.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { McpClient, type McpSchema } from "@mcp-effect/core"
import { NodeStdioTransport } from "@mcp-effect/transport-stdio"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs, promisify } from "node:util"
import type { CorpusServer, CorpusTool } from "./corpus.js"

interface ServerSpec {
  /** The server name in tool ids (`server/tool`) and the fixture file name. */
  readonly server: string
  readonly package: string
  readonly version: string
  /** The `bin` entry to run when the package has several. */
  readonly bin?: string
  readonly args?: ReadonlyArray<string>
  /** Fake values only: listing tools does not reach the service. */
  readonly env?: Readonly<Record<string, string>>
  /** Starts a throwaway `redis-server` on loopback and passes its URL as the last argument. */
  readonly redis?: boolean
}

const fake = "fake-value-for-tool-listing"

/** The servers of the corpus, pinned. */
export const servers: ReadonlyArray<ServerSpec> = [
  { server: "everything", package: "@modelcontextprotocol/server-everything", version: "2026.8.31", args: ["stdio"] },
  { server: "filesystem", package: "@modelcontextprotocol/server-filesystem", version: "2026.8.31", args: [tmpdir()] },
  { server: "memory", package: "@modelcontextprotocol/server-memory", version: "2026.8.31" },
  { server: "sequential-thinking", package: "@modelcontextprotocol/server-sequential-thinking", version: "2026.8.31" },
  {
    server: "github",
    package: "@modelcontextprotocol/server-github",
    version: "2025.4.8",
    env: { GITHUB_PERSONAL_ACCESS_TOKEN: fake }
  },
  {
    server: "gitlab",
    package: "@modelcontextprotocol/server-gitlab",
    version: "2025.4.25",
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: fake, GITLAB_API_URL: "http://127.0.0.1:9/api/v4" }
  },
  { server: "puppeteer", package: "@modelcontextprotocol/server-puppeteer", version: "2025.5.12" },
  { server: "playwright", package: "@playwright/mcp", version: "0.0.83", args: ["--headless"] },
  { server: "chrome-devtools", package: "chrome-devtools-mcp", version: "1.11.0" },
  {
    server: "postgres",
    package: "@modelcontextprotocol/server-postgres",
    version: "0.6.2",
    args: ["postgresql://127.0.0.1:9/fake"]
  },
  // connects before it answers: the capture starts a throwaway `redis-server` on loopback for it
  { server: "redis", package: "@modelcontextprotocol/server-redis", version: "2025.4.25", redis: true },
  { server: "mongodb", package: "mongodb-mcp-server", version: "3.0.4" },
  {
    server: "slack",
    package: "@modelcontextprotocol/server-slack",
    version: "2025.4.25",
    env: { SLACK_BOT_TOKEN: fake, SLACK_TEAM_ID: "T00000000" }
  },
  { server: "notion", package: "@notionhq/notion-mcp-server", version: "2.5.2", env: { NOTION_TOKEN: fake } },
  {
    server: "jira",
    package: "@aashari/mcp-server-atlassian-jira",
    version: "3.3.0",
    env: { ATLASSIAN_SITE_NAME: "fake", ATLASSIAN_USER_EMAIL: "fake@example.com", ATLASSIAN_API_TOKEN: fake }
  },
  { server: "sentry", package: "@sentry/mcp-server", version: "0.39.0", args: [`--access-token=${fake}`] },
  { server: "hubspot", package: "@hubspot/mcp-server", version: "0.4.0", env: { PRIVATE_APP_ACCESS_TOKEN: fake } },
  {
    server: "brave-search",
    package: "@modelcontextprotocol/server-brave-search",
    version: "0.6.2",
    env: { BRAVE_API_KEY: fake }
  },
  { server: "tavily", package: "tavily-mcp", version: "0.2.22", env: { TAVILY_API_KEY: fake } },
  { server: "exa", package: "exa-mcp-server", version: "3.4.1", env: { EXA_API_KEY: fake } },
  { server: "firecrawl", package: "firecrawl-mcp", version: "3.26.0", env: { FIRECRAWL_API_KEY: `fc-${fake}` } },
  { server: "desktop-commander", package: "@wonderwhy-er/desktop-commander", version: "0.2.52" },
  { server: "chart", package: "@antv/mcp-server-chart", version: "0.9.10" },
  { server: "git", package: "@cyanheads/git-mcp-server", version: "2.15.3" },
  { server: "kubernetes", package: "mcp-server-kubernetes", version: "4.1.7" },
  { server: "circleci", package: "@circleci/mcp-server-circleci", version: "0.20.0", env: { CIRCLECI_TOKEN: fake } },
  { server: "linear", package: "@tacticlaunch/mcp-linear", version: "1.4.3", env: { LINEAR_API_TOKEN: fake } },
  { server: "airtable", package: "airtable-mcp-server", version: "1.14.0", env: { AIRTABLE_API_KEY: fake } },
  { server: "monday", package: "@mondaydotcomorg/monday-api-mcp", version: "3.3.0", args: ["-t", fake] },
  {
    server: "elasticsearch",
    package: "@elastic/mcp-server-elasticsearch",
    version: "0.3.1",
    env: { ES_URL: "http://127.0.0.1:9", ES_API_KEY: fake }
  },
  { server: "pinecone", package: "@pinecone-database/mcp", version: "0.3.0", env: { PINECONE_API_KEY: fake } },
  { server: "playwright-ea", package: "@executeautomation/playwright-mcp-server", version: "1.0.12" },
  { server: "browser-tools", package: "@agentdeskai/browser-tools-mcp", version: "2.0.2" },
  { server: "context7", package: "@upstash/context7-mcp", version: "4.1.1" },
  {
    server: "google-maps",
    package: "@modelcontextprotocol/server-google-maps",
    version: "0.6.2",
    env: { GOOGLE_MAPS_API_KEY: fake }
  }
]

const { values: flags } = parseArgs({
  options: {
    dir: { type: "string", default: join(tmpdir(), "mcp-corpus") },
    only: { type: "string" },
    "no-install": { type: "boolean", default: false },
    timeout: { type: "string", default: "60" }
  }
})

const out = fileURLToPath(new URL("../fixtures/tool-corpus/", import.meta.url))
const only = flags.only?.split(",")
const chosen = servers.filter((spec) => only === undefined || only.includes(spec.server))
const dir = flags.dir
const run = promisify(execFile)

/** Each server in its own folder: packages pin different SDK versions and import their deep paths. */
const home = (spec: ServerSpec) => join(dir, spec.server)

const install = async (spec: ServerSpec) => {
  const folder = home(spec)
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, "package.json"), JSON.stringify({ name: `corpus-${spec.server}`, private: true }))
  await run("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--no-save",
    "--ignore-scripts",
    "--legacy-peer-deps",
    `${spec.package}@${spec.version}`
  ], { cwd: folder })
}

/** The script the package's `bin` runs. */
const binOf = (spec: ServerSpec): string => {
  const root = join(home(spec), "node_modules", spec.package)
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    readonly version: string
    readonly bin?: string | Record<string, string>
  }
  if (manifest.version !== spec.version) {
    throw new Error(`${spec.package}: installed ${manifest.version}, pinned ${spec.version}`)
  }
  const bin = manifest.bin
  if (bin === undefined) throw new Error(`${spec.package} has no bin`)
  if (typeof bin === "string") return join(root, bin)
  const names = Object.keys(bin)
  const own = spec.package.split("/").pop()!
  const name = spec.bin ?? (names.length === 1 ? names[0] : names.find((bin) => bin === own))
  if (name === undefined || bin[name] === undefined) {
    throw new Error(`${spec.package} has several bins (${names.join(", ")}); set one`)
  }
  return join(root, bin[name])
}

const pick = (tool: McpSchema.Tool): CorpusTool => {
  const picked: CorpusTool = {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema,
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {})
  }
  return picked
}

/** A throwaway `redis-server` on a free loopback port, stopped with the scope. */
const redisServer = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly child: ChildProcess }, Error>((resume) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const port = (probe.address() as AddressInfo).port
      probe.close(() => {
        const child = spawn("redis-server", [
          "--port",
          String(port),
          "--bind",
          "127.0.0.1",
          "--save",
          "",
          "--appendonly",
          "no"
        ])
        child.on("error", (error) => resume(Effect.fail(error)))
        child.stdout.on("data", (chunk: Buffer) => {
          if (chunk.toString().includes("Ready to accept connections")) {
            resume(Effect.succeed({ url: `redis://127.0.0.1:${port}`, child }))
          }
        })
      })
    })
  }),
  ({ child }) => Effect.sync(() => child.kill())
)

const capture = (spec: ServerSpec) =>
  Effect.suspend(() =>
    Effect.gen(function*() {
      const client = yield* McpClient.make({
        clientInfo: { name: "tool-corpus-capture", version: "1.0.0" },
        prefetch: false
      })
      const initialized = yield* client.initialized
      const tools = yield* client.listTools
      const result: CorpusServer = {
        server: spec.server,
        package: spec.package,
        version: spec.version,
        ...(initialized.instructions !== undefined ? { instructions: initialized.instructions } : {}),
        tools: tools.map(pick)
      }
      return result
    }).pipe(
      Effect.provide(Layer.unwrapScoped(Effect.gen(function*() {
        const redis = spec.redis === true ? [(yield* redisServer).url] : []
        return NodeStdioTransport.layer({
          command: process.execPath,
          args: [binOf(spec), ...(spec.args ?? []), ...redis],
          env: { NODE_NO_WARNINGS: "1", ...spec.env },
          cwd: home(spec)
        })
      }))),
      Effect.scoped
    )
  ).pipe(
    Effect.timeoutFail({
      duration: `${Number(flags.timeout)} seconds`,
      onTimeout: () => new Error(`timed out after ${flags.timeout} s`)
    })
  )

if (!flags["no-install"]) {
  // four installs at a time
  const queue = [...chosen]
  await Promise.all(Array.from({ length: 4 }, async () => {
    for (let spec = queue.shift(); spec !== undefined; spec = queue.shift()) {
      await install(spec).catch((error) =>
        console.error(`${spec!.server}: install failed: ${String(error).split("\n")[0]}`)
      )
    }
  }))
}
mkdirSync(dirname(out), { recursive: true })
mkdirSync(out, { recursive: true })

let total = 0
for (const spec of chosen) {
  const exit = await Effect.runPromiseExit(capture(spec).pipe(Effect.provide(NodeContext.layer)))
  if (exit._tag === "Success") {
    const server = exit.value
    writeFileSync(join(out, `${spec.server}.json`), JSON.stringify(server, null, 2) + "\n")
    total += server.tools.length
    console.error(`${spec.server}: ${server.tools.length} tools (${spec.package}@${spec.version})`)
  } else {
    console.error(`${spec.server}: FAILED ${String(exit.cause).split("\n").slice(0, 3).join(" | ")}`)
  }
}
console.error(`total: ${total} tools`)
