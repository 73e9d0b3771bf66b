/**
 * `npm run e2e`: seed 000's acceptance scenarios, driven in Chromium as a
 * user would (clicks and forms) against the built console, with real servers
 * on 127.0.0.1: the MCP fixture (official SDK, strict CORS), oidc-provider
 * and the console's static files. Each scenario asserts what the servers
 * received, not only what the page shows, and leaves a screenshot of its end
 * state in `e2e-results/`. Ends with `e2e: N passed, M failed`; exits 1 on
 * any failure.
 *
 * The second half meets the console as a new user does: against
 * `@modelcontextprotocol/server-everything` over Streamable HTTP (behind a
 * recording proxy), at 1400x900, checking that the page never scrolls
 * sideways and that dialogs fit or scroll. `E2E_ONLY=<regex>` runs only the
 * scenarios whose name matches (each server-everything scenario adds the
 * server it needs).
 *
 * The MCP Apps scenarios add app servers from the browser suite
 * (`browser/servers/apps.ts`: its own clock app and the official
 * `@modelcontextprotocol/server-basic-vanillajs`) in always-ask mode: the
 * console's MCP Apps panel renders each app sandboxed under the CSP it
 * declares, and every call the app makes is asked about in the console's
 * dialog ("Asked by the app of <server>"), recorded with the app as its
 * origin, and never sent when denied. They add and remove their own servers.
 *
 * The OAuth sign-in window scenarios hold the popup on a sign-in page of the
 * authorization server's origin (served by a route of the browser context,
 * with or without `Cross-Origin-Opener-Policy`) until the test signs in
 * there, closes the window or cancels the sign-in from the console.
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { build } from "vite"
import { type AppServer, type ClockApp, clockUri, startClockApp, startOfficialApp } from "../browser/servers/apps.js"
import { type Everything, type Recorded as EverythingRecorded, startEverything } from "../browser/servers/everything.js"
import type { Recorded } from "../browser/servers/mcpServer.js"
import * as McpApps from "../packages/core/src/McpApps.js"
import { startAppServer } from "./servers/appServer.js"
import { tools as fixtureTools } from "./servers/consoleServer.js"
import { clientId, confidentialClientId, popupClientIds, startDemoServers } from "./servers/demo.js"

const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const launchArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]
const webRoot = fileURLToPath(new URL("../examples/web", import.meta.url))
const results = "e2e-results"

class Failed extends Error {}
const expect = (condition: unknown, what: string): void => {
  if (!condition) throw new Failed(what)
}

/** Waits (up to 10 s) for something the servers record after the page has moved on. */
const until = async (condition: () => boolean): Promise<boolean> => {
  const deadline = Date.now() + 10_000
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  return condition()
}

const evBody = (r: EverythingRecorded) =>
  r.body as { method?: string; id?: unknown; params?: any; result?: any } | undefined
const bodyOf = (r: Recorded) => r.body as { method?: string; id?: unknown; params?: any } | undefined
const callsOf = (requests: ReadonlyArray<Recorded>, tool: string) =>
  requests.filter((r) => bodyOf(r)?.method === "tools/call" && bodyOf(r)?.params?.name === tool)

const main = async () => {
  const startedAt = Date.now()
  if (!existsSync(chromiumPath)) installChromium()
  await build({ configFile: join(webRoot, "vite.config.ts"), logLevel: "info" })
  const app = await startAppServer(join(webRoot, "dist"))
  const servers = await startDemoServers(app.origin)
  const { auth, mcp } = servers
  const reqs = mcp.requests
  const mcpUrl = `${mcp.origin}/mcp`
  const secureUrl = `${mcp.origin}/secure/mcp`
  await mkdir(results, { recursive: true })
  const userDataDir = await mkdtemp(join(tmpdir(), "mcp-effect-e2e-"))
  let context: BrowserContext | undefined
  let everything: Everything | undefined
  let clock: ClockApp | undefined
  let vanilla: AppServer | undefined
  const outcomes: Array<{ readonly name: string; readonly error?: string }> = []
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: chromiumPath,
      headless: true,
      args: launchArgs,
      viewport: { width: 1400, height: 900 }
    })
    // tsx keeps function names with a `__name` helper that functions sent to the page refer to
    await context.addInitScript({ content: "globalThis.__name = (f) => f" })
    const page: Page = context.pages()[0] ?? await context.newPage()
    const consoleErrors: Array<string> = []
    page.on("pageerror", (error) => consoleErrors.push(`uncaught: ${error.message}`))
    // every console error, for the scenarios that say "no console errors"
    const loggedErrors: Array<string> = []
    page.on("console", (message) => {
      if (message.type() === "error") loggedErrors.push(message.text())
    })
    // the sign-in window scenarios hold the user on a sign-in page of the authorization server's origin (with
    // Cross-Origin-Opener-Policy when `signInPage` says so) until the test clicks "Sign in" there
    let signInPage: "hold" | "hold-coop" | undefined
    await context.route((url) => url.origin === auth.issuer && url.pathname === "/auth", async (route) => {
      const url = new URL(route.request().url())
      if (signInPage === undefined || url.searchParams.has("signed-in")) return route.continue()
      url.searchParams.set("signed-in", "1")
      return route.fulfill({
        status: 200,
        contentType: "text/html",
        headers: signInPage === "hold-coop" ? { "cross-origin-opener-policy": "same-origin" } : {},
        body: `<!doctype html><title>Sign in</title><a id="sign-in" href="${
          url.href.replaceAll("&", "&amp;")
        }">Sign in</a>`
      })
    })
    await page.goto(app.origin)
    await page.getByRole("button", { name: "Add Server" }).waitFor()

    let index = 0
    const only = process.env.E2E_ONLY === undefined ? undefined : new RegExp(process.env.E2E_ONLY, "i")
    const scenario = async (name: string, body: () => Promise<void>) => {
      index++
      if (only !== undefined && !only.test(name)) return
      consoleErrors.length = 0
      try {
        await body()
        expect(consoleErrors.length === 0, `page errors: ${consoleErrors.join(" | ")}`)
        outcomes.push({ name })
        console.log(`  ok    ${name}`)
      } catch (error) {
        const message = error instanceof Error
          ? error.message.split("\n").slice(0, process.env.E2E_VERBOSE ? 12 : 1).join("\n        ")
          : String(error)
        outcomes.push({ name, error: message })
        console.log(`  FAIL  ${name}\n        ${message}`)
      }
      await page.screenshot({
        path: join(results, `${String(index).padStart(2, "0")}-${name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}.png`),
        fullPage: true
      })
        .catch(() => undefined)
    }
    const sessionOf = (server: string) => page.getByTestId(`session-${server}`).textContent()
    const waitText = (testId: string, re: RegExp, within = page) =>
      within.getByTestId(testId).filter({ hasText: re }).first().waitFor({ timeout: 15_000 })
    const setMode = async (mode: string) => {
      await page.locator("select[name=approval-mode]").selectOption(mode)
      await page.getByTestId("status-demo").filter({ hasText: "Connected" }).waitFor({ timeout: 15_000 })
    }
    const openTool = async (name: string) => {
      const item = page.getByTestId(`tool-${name}`)
      const runner = item.getByTestId(`runner-${name}`)
      if (await runner.count() === 0) await item.getByRole("button", { name: "Run…" }).click()
      return runner
    }
    const runTool = async (name: string, fields: Record<string, string>) => {
      const runner = await openTool(name)
      for (const [field, value] of Object.entries(fields)) await runner.locator(`input[name=${field}]`).fill(value)
      await runner.getByRole("button", { name: "Run" }).click()
      return runner
    }
    const dialog = page.getByRole("dialog", { name: "Confirm tool call" })

    await scenario("Add MCP server with Streamable HTTP", async () => {
      const from = reqs.length
      await page.getByRole("button", { name: "Add Server" }).click()
      await page.locator("input[name=server-name]").fill("demo")
      await page.locator("input[name=server-url]").fill(mcpUrl)
      await page.locator("select[name=transport]").selectOption("Http")
      await page.getByRole("button", { name: "Test Connection" }).click()
      await waitText("test-result", /Connected/)
      const shown = await page.getByTestId("test-session").textContent()
      expect(shown !== null && /^[0-9a-f-]{36}$/.test(shown), `session id shown: ${shown}`)
      const chips = page.getByTestId("test-result").locator("img.icon")
      await chips.first().waitFor()
      expect(await chips.count() >= 4, `${await chips.count()} tool icons`)
      const posts = reqs.slice(from).filter((r) => r.method === "POST")
      expect(posts.some((r) => bodyOf(r)?.method === "initialize"), "the server received no initialize")
      expect(
        posts.some((r) => bodyOf(r)?.method === "tools/list" && r.headers["mcp-session-id"] === shown),
        "tools/list did not come in the session shown"
      )
      // a test saves nothing
      expect(await page.getByTestId("server-demo").count() === 0, "Test Connection added the server to the list")
      await page.getByRole("button", { name: "Save" }).click()
      await page.getByTestId("server-demo").waitFor()
      await page.getByTestId("status-demo").filter({ hasText: "Connected" }).waitFor({ timeout: 15_000 })
      // the test's own session was closed when the form closed
      expect(
        await until(() => reqs.some((r) => r.method === "DELETE" && r.headers["mcp-session-id"] === shown)),
        "the test's session was never DELETEd"
      )
      await page.reload()
      await page.getByTestId("status-demo").filter({ hasText: "Connected" }).waitFor({ timeout: 15_000 })
    })

    await scenario("Configure OAuth 2.1 authentication", async () => {
      const from = reqs.length
      const authorizations = auth.authorizations.length
      await page.getByRole("button", { name: "Add Server" }).click()
      await page.locator("input[name=server-name]").fill("secure")
      await page.locator("input[name=server-url]").fill(secureUrl)
      await page.locator("input[name=trusted]").check()
      await page.locator("select[name=auth]").selectOption("oauth2")
      await page.locator("input[name=client-id]").fill(clientId)
      await page.locator("input[name=scopes]").fill("mcp:read")
      const popup = context!.waitForEvent("page")
      await page.getByRole("button", { name: "Authorize" }).click()
      const opened = await popup
      await waitText("test-result", /Connected/)
      // the popup went to the authorization server (its /auth saw the request) and came back to the callback
      expect(
        new URL(opened.url()).pathname === "/oauth/callback" || opened.isClosed(),
        `the popup ended on ${opened.url()}`
      )
      await page.getByRole("button", { name: "Save" }).click()
      // the saved server uses the token the test obtained: no second sign-in
      await page.getByTestId("status-secure").filter({ hasText: "Connected" }).waitFor({ timeout: 15_000 })
      expect(
        auth.authorizations.length === authorizations + 1,
        `${auth.authorizations.length - authorizations} authorization requests`
      )
      const request = auth.authorizations.at(-1)!
      expect(
        request.get("code_challenge_method") === "S256" && request.get("client_id") === clientId,
        "no PKCE S256 for the client"
      )
      expect(auth.grants.includes("authorization_code"), "no code was exchanged")
      const bearer = reqs.slice(from).find((r) =>
        r.path === "/secure/mcp" && String(r.headers.authorization).startsWith("Bearer ")
      )
      expect(bearer !== undefined, "no request carried the token")
      const token = String(bearer!.headers.authorization).slice("Bearer ".length)
      const stored = await page.evaluate(dumpIndexedDb, "mcp-console-tokens")
      expect(stored.records > 0, "no token record in IndexedDB")
      expect(
        !stored.text.includes(token) && !stored.text.includes(token.slice(0, 24)),
        "the access token is readable in storage"
      )
    })

    await scenario("Connect GPT to MCP server", async () => {
      await page.locator("select[name=model-server]").selectOption("demo")
      await page.locator("select[name=provider]").selectOption("openai-chat")
      const json = JSON.parse(await page.getByTestId("model-tools").textContent() ?? "[]") as Array<any>
      expect(json.length === fixtureTools.length, `${json.length} tools for the model`)
      for (const tool of fixtureTools) {
        const entry = json.find((t) => t.function.name.endsWith(tool.name))
        expect(entry !== undefined, `no ${tool.name}`)
        expect(
          JSON.stringify(entry.function.parameters.properties) === JSON.stringify(tool.inputSchema.properties),
          `${tool.name}'s parameters differ from what the server sent`
        )
      }
      await page.locator("select[name=provider]").selectOption("anthropic")
      const anthropic = JSON.parse(await page.getByTestId("model-tools").textContent() ?? "[]") as Array<any>
      expect(anthropic.every((t) => typeof t.input_schema === "object"), "no input_schema in the Anthropic format")
      const card = page.getByTestId(/^tool-.*delete_file$/).first()
      expect(await card.locator("img.icon").count() === 1, "no icon on delete_file")
      expect(await card.locator(".badge.destructive").count() === 1, "no destructive badge")
      expect(
        await page.getByTestId(/^tool-.*search_docs$/).first().locator(".badge.read-only").count() === 1,
        "no read-only badge"
      )
    })

    const approve = async (button: "Approve once" | "Always allow" | "Deny") => {
      await dialog.waitFor({ timeout: 15_000 })
      await dialog.getByRole("button", { name: button }).click()
      await dialog.waitFor({ state: "hidden" })
    }
    const historyHas = (tool: string, status: string) =>
      page.getByTestId("history-row").filter({ hasText: tool }).filter({ hasText: status }).first().waitFor({
        timeout: 15_000
      })

    await scenario("Execute MCP tool during chat", async () => {
      const from = reqs.length
      const runner = await runTool("demo__delete_file", { path: "/tmp/report.txt" })
      await dialog.waitFor()
      const warning = dialog.getByTestId("warning-Destructive")
      expect(await warning.count() === 1, "no destructive warning in the dialog")
      expect(callsOf(reqs.slice(from), "delete_file").length === 0, "the call reached the server before approval")
      await page.screenshot({ path: join(results, "04-confirmation-dialog.png") })
      await approve("Approve once")
      await waitText("call-result", /deleted \/tmp\/report.txt/, runner as unknown as Page)
      const calls = callsOf(reqs.slice(from), "delete_file")
      expect(
        calls.length === 1 && bodyOf(calls[0]!)?.params?.arguments?.path === "/tmp/report.txt",
        `${calls.length} calls reached the server`
      )
      await historyHas("delete_file", "Completed")
    })

    let reportCall: Recorded | undefined
    await scenario("Long-running tool with progress while the page stays usable", async () => {
      const from = reqs.length
      const runner = await runTool("demo__build_report", { steps: "60" })
      await dialog.waitFor({ timeout: 15_000 })
      expect(
        await runner.getByTestId("call-status").textContent() === "Awaiting approval",
        "not 'Awaiting approval' while the dialog asks"
      )
      await approve("Approve once")
      await runner.getByTestId("progress").waitFor({ timeout: 15_000 })
      await page.waitForFunction(
        () => {
          const bar = document.querySelector("[data-testid=runner-demo__build_report] progress") as
            | HTMLProgressElement
            | null
          return bar !== null && bar.value >= 2
        },
        undefined,
        { timeout: 15_000 }
      )
      // another call while the long one runs
      const echo = await runTool("demo__echo", { text: "still usable" })
      await approve("Approve once")
      await waitText("call-result", /still usable/, echo as unknown as Page)
      expect(await runner.getByTestId("call-status").textContent() === "Running", "the long call is no longer running")
      reportCall = callsOf(reqs.slice(from), "build_report")[0]
      expect(
        reportCall !== undefined && bodyOf(reportCall)?.params?._meta?.progressToken !== undefined,
        "the long call carried no progress token"
      )
      expect(callsOf(reqs.slice(from), "echo").length === 1, "the second call did not reach the server")
    })

    await scenario("Cancel a running tool and a task", async () => {
      const runner = page.getByTestId("runner-demo__build_report")
      await runner.getByRole("button", { name: /^Cancel/ }).click()
      await waitText("call-status", /Cancelled/, runner as unknown as Page)
      const id = bodyOf(reportCall!)?.id
      const cancelled = () =>
        reqs.some((r) => bodyOf(r)?.method === "notifications/cancelled" && bodyOf(r)?.params?.requestId === id)
      expect(await until(cancelled), "the server received no notifications/cancelled for the call")
      expect(await until(() => mcp.aborted.includes(String(id))), "the server did not abort the tool")
      await historyHas("build_report", "Cancelled")

      // a task: "Cancel task" sends tasks/cancel
      const from = reqs.length
      const task = await runTool("demo__export_archive", { steps: "100" })
      await approve("Approve once")
      await waitText("task-status", /working/, task as unknown as Page)
      const taskId = await task.locator("code").first().textContent()
      await task.getByRole("button", { name: "Cancel task" }).click()
      await waitText("call-status", /Cancelled/, task as unknown as Page)
      const created = callsOf(reqs.slice(from), "export_archive")[0]
      expect(created !== undefined && bodyOf(created)?.params?.task !== undefined, "the call was not task-augmented")
      const cancel = () =>
        reqs.slice(from).some((r) => bodyOf(r)?.method === "tasks/cancel" && bodyOf(r)?.params?.taskId === taskId)
      expect(await until(cancel), `no tasks/cancel for task ${taskId}`)
      await historyHas("export_archive", "Cancelled")
      expect(await until(() => mcp.aborted.includes(`task:${taskId}`)), "the server's task did not stop")
    })

    await scenario("Tool failure shown as an error", async () => {
      const from = reqs.length
      const runner = await runTool("demo__sync_inventory", {})
      await approve("Approve once")
      await runner.locator("pre.error").filter({ hasText: /upstream database unreachable/ }).waitFor({
        timeout: 15_000
      })
      expect(callsOf(reqs.slice(from), "sync_inventory").length === 1, "the server received no call")
      await historyHas("sync_inventory", "Failed")
    })

    await scenario("Approval modes: auto, always-ask, trusted-only", async () => {
      await setMode("auto")
      await page.getByTestId("status-secure").filter({ hasText: "Connected" }).waitFor({ timeout: 15_000 })
      let from = reqs.length
      const auto = await runTool("demo__echo", { text: "auto mode" })
      await waitText("call-result", /auto mode/, auto as unknown as Page)
      expect(await dialog.count() === 0, "auto mode asked")
      expect(callsOf(reqs.slice(from), "echo").length === 1, "auto: the server received no call")

      await setMode("always-ask")
      from = reqs.length
      const ask = await runTool("demo__echo", { text: "ask mode" })
      await approve("Deny")
      await waitText("call-error", /ApprovalDenied/, ask as unknown as Page)
      expect(await ask.getByTestId("call-status").textContent() === "Denied", "a denied call is not shown as Denied")
      expect(callsOf(reqs.slice(from), "echo").length === 0, "always-ask: a denied call reached the server")

      await setMode("trusted-only")
      await page.getByTestId("status-secure").filter({ hasText: "Connected" }).waitFor({ timeout: 15_000 })
      from = reqs.length
      const untrusted = await runTool("demo__echo", { text: "untrusted" })
      await approve("Approve once")
      await waitText("call-result", /untrusted/, untrusted as unknown as Page)
      const trusted = await runTool("secure__echo", { text: "trusted server" })
      await waitText("call-result", /trusted server/, trusted as unknown as Page)
      expect(await dialog.count() === 0, "trusted-only asked for the trusted server")
      const calls = callsOf(reqs.slice(from), "echo")
      expect(calls.length === 2, `${calls.length} echo calls reached the servers`)
      expect(
        calls[1]!.path === "/secure/mcp" && String(calls[1]!.headers.authorization).startsWith("Bearer "),
        "the trusted call went elsewhere"
      )
    })

    await scenario("Session expiry: a new session, only safe calls retried", async () => {
      await setMode("auto")
      await page.getByTestId("status-secure").filter({ hasText: "Connected" }).waitFor({ timeout: 15_000 })
      // the session in use: the one a call just went through
      let from = reqs.length
      const warmup = await runTool("secure__echo", { text: "before expiry" })
      await waitText("call-result", /before expiry/, warmup as unknown as Page)
      const before = String(callsOf(reqs.slice(from), "echo")[0]?.headers["mcp-session-id"])
      from = reqs.length
      mcp.expireSessions()
      const search = await runTool("secure__search_docs", { query: "sessions" })
      await waitText("call-result", /3 results for "sessions"/, search as unknown as Page)
      await page.waitForFunction(
        ([b]) => {
          const now = document.querySelector("[data-testid=session-secure]")?.textContent
          return now !== undefined && now !== null && now !== "-" && now !== b
        },
        [before],
        { timeout: 15_000 }
      )
      const after = await sessionOf("secure")
      const since = reqs.slice(from)
      expect(since.some((r) => bodyOf(r)?.method === "initialize" && r.path === "/secure/mcp"), "no new initialize")
      const searches = callsOf(since, "search_docs")
      expect(
        searches.length === 2 && searches[0]!.headers["mcp-session-id"] === before &&
          searches[1]!.headers["mcp-session-id"] === after,
        `before ${before}, after ${after}: ${
          since.map((r) => `${r.method} ${r.path} ${bodyOf(r)?.method ?? ""} ${r.headers["mcp-session-id"] ?? ""}`)
            .join(" | ")
        }`
      )

      // refused with 404, so never run: sent again in the new session, and run once
      from = reqs.length
      mcp.expireSessions()
      const destructive = await runTool("secure__delete_file", { path: "/tmp/once.txt" })
      await waitText("call-result", /deleted \/tmp\/once.txt/, destructive as unknown as Page)
      const deletes = callsOf(reqs.slice(from), "delete_file")
      const current = deletes.at(-1)?.headers["mcp-session-id"]
      expect(
        deletes.length === 2 && deletes[0]!.headers["mcp-session-id"] === after && current !== after,
        `delete_file: ${deletes.map((r) => r.headers["mcp-session-id"]).join(", ")}`
      )

      // in flight when the server drops the session: not idempotent, so not sent again
      from = reqs.length
      const long = await runTool("secure__build_report", { steps: "100" })
      await long.getByTestId("progress").waitFor({ timeout: 15_000 })
      mcp.expireSessions({ close: true })
      await long.getByTestId("call-status").filter({ hasText: /Failed|Completed|Cancelled/ }).waitFor({
        timeout: 20_000
      })
      expect(await long.getByTestId("call-status").textContent() === "Failed", "the dropped call did not fail")
      const reports = callsOf(reqs.slice(from), "build_report")
      expect(reports.length === 1, `build_report reached the server ${reports.length} times`)
      await page.waitForFunction(
        ([c]) => {
          const now = document.querySelector("[data-testid=session-secure]")?.textContent
          return now !== undefined && now !== null && now !== "-" && now !== c
        },
        [String(current)],
        { timeout: 15_000 }
      )
    })

    // --- as a new user meets it: server-everything over Streamable HTTP ------------------------------
    everything = await startEverything()
    const ev = everything
    const evCalls = (from: number, tool: string) =>
      ev.requests.slice(from).filter((r) => evBody(r)?.method === "tools/call" && evBody(r)?.params?.name === tool)
    const evItem = (tool: string) =>
      page.locator(`li[data-testid^="tool-"][data-testid$="${tool}"]`).filter({ hasText: "@everything" }).first()
    const openEv = async (tool: string) => {
      const item = evItem(tool)
      await item.waitFor({ timeout: 15_000 })
      const runner = item.locator(`[data-testid^="runner-"]`)
      if (await runner.count() === 0) await item.getByRole("button", { name: "Run…" }).click()
      return runner
    }
    const runEv = async (tool: string, fields: Record<string, string> = {}) => {
      const runner = await openEv(tool)
      for (const [field, value] of Object.entries(fields)) await runner.locator(`input[name=${field}]`).fill(value)
      await runner.getByRole("button", { name: "Run" }).click()
      return runner
    }
    const statusOf = (runner: ReturnType<typeof page.locator>) => runner.getByTestId("call-status").textContent()
    const waitStatus = (runner: ReturnType<typeof page.locator>, re: RegExp, timeout = 15_000) =>
      runner.getByTestId("call-status").filter({ hasText: re }).waitFor({ timeout })
    const noOverflow = async (what: string) => {
      const widths = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        inner: window.innerWidth
      }))
      expect(
        widths.scroll <= widths.inner,
        `${what}: the page is ${widths.scroll} px wide in a ${widths.inner} px window`
      )
    }
    const elicitation = page.getByRole("dialog", { name: "Server request" })
    /** The dialog fits the window, or scrolls inside it so that its last button can be reached. */
    const fitsOrScrolls = async (dialogLocator: ReturnType<typeof page.locator>, what: string) => {
      const box = await dialogLocator.locator(".card").evaluate((card) => {
        const rect = card.getBoundingClientRect()
        const style = getComputedStyle(card)
        return {
          top: rect.top,
          bottom: rect.bottom,
          scrolls: card.scrollHeight <= card.clientHeight || style.overflowY === "auto" || style.overflowY === "scroll"
        }
      })
      expect(
        box.top >= 0 && box.bottom <= 900,
        `${what}: the dialog runs from ${box.top} to ${box.bottom} px in a 900 px window`
      )
      expect(box.scrolls, `${what}: the dialog is taller than its box and cannot scroll`)
    }
    const addEverything = async () => {
      // the calls below run without the approval dialog
      if (await page.locator("select[name=approval-mode]").inputValue() !== "auto") {
        await page.locator("select[name=approval-mode]").selectOption("auto")
        await page.getByRole("button", { name: "Add Server" }).waitFor()
      }
      if (await page.getByTestId("server-everything").count() > 0) return
      await page.getByRole("button", { name: "Add Server" }).click()
      await page.locator("input[name=server-name]").fill("everything")
      await page.locator("input[name=server-url]").fill(ev.url)
      await page.getByRole("button", { name: "Save" }).click()
      await page.getByTestId("status-everything").filter({ hasText: "Connected" }).waitFor({ timeout: 20_000 })
    }
    /** Answers server-everything's elicitation form with its defaults and a name; resolves with the call's runner. */
    const elicitRoundTrip = async (name: string) => {
      const from = ev.requests.length
      const runner = await runEv("trigger-elicitation-request")
      await elicitation.waitFor({ timeout: 15_000 })
      await elicitation.locator("input[name=name]").fill(name)
      await elicitation.getByRole("button", { name: "Send" }).click()
      await elicitation.waitFor({ state: "hidden", timeout: 15_000 })
      await runner.getByTestId("call-result").filter({ hasText: new RegExp(`Name: ${name}`) }).first().waitFor({
        timeout: 15_000
      })
      const answer = ev.requests.slice(from).find((r) => evBody(r)?.result?.action === "accept")
      expect(
        answer !== undefined && evBody(answer)?.result?.content?.name === name,
        "the server received no accepted answer"
      )
      return { runner, answer: evBody(answer!)?.result?.content }
    }

    // --- MCP Apps: a server with a UI, its app rendered in the console -------------------------------
    clock = await startClockApp(app.origin, "http://127.0.0.1:9/undeclared", "2025-11-25")
    const clockServer = clock
    vanilla = await startOfficialApp("@modelcontextprotocol/server-basic-vanillajs", app.origin)
    const vanillaServer = vanilla
    const appFrame = page.locator("iframe[data-mcp-app]")
    /**
     * Answers the dialog for `title`, checking who it says asked (the app's server and URI, or nobody: the
     * console's own call); resolves once it is answered.
     */
    const decide = async (
      title: string,
      button: "Approve once" | "Deny",
      app: { readonly server: string; readonly uri: string } | undefined
    ) => {
      const asking = dialog.filter({ hasText: `Run ${title}?` })
      await asking.waitFor({ timeout: 15_000 })
      const origin = app === undefined ? null : await dialog.getByTestId("approval-origin").textContent()
      expect(
        app === undefined ?
          await dialog.getByTestId("approval-origin").count() === 0 :
          origin === `Asked by the app of ${app.server} (${app.uri})`,
        `the dialog for ${title} says ${origin ?? "nothing"} about who asked`
      )
      if (app !== undefined) await page.screenshot({ path: join(results, "mcp-app-approval.png") })
      await dialog.getByRole("button", { name: button }).click()
      await asking.waitFor({ state: "hidden", timeout: 10_000 })
    }
    /** Adds an app server in always-ask mode; resolves with its app's entry in the MCP Apps panel. */
    const addAppServer = async (name: string, url: string, tool: string) => {
      // a new mode builds the console's hub anew: wait for it before adding
      await page.locator("select[name=approval-mode]").selectOption("always-ask")
      await page.getByRole("button", { name: "Add Server" }).waitFor()
      await page.getByRole("button", { name: "Add Server" }).click()
      await page.locator("input[name=server-name]").fill(name)
      await page.locator("input[name=server-url]").fill(url)
      await page.getByRole("button", { name: "Save" }).click()
      await page.getByTestId(`status-${name}`).filter({ hasText: "Connected" }).waitFor({ timeout: 20_000 })
      const item = page.getByTestId(`app-${name}__${tool}`)
      await item.waitFor({ timeout: 15_000 })
      return item
    }
    const removeAppServer = async (name: string, item: ReturnType<typeof page.locator>) => {
      await item.getByRole("button", { name: "Close" }).click()
      await appFrame.waitFor({ state: "detached", timeout: 10_000 })
      await page.getByTestId(`server-${name}`).getByRole("button", { name: "Remove" }).click()
      await page.getByTestId(`server-${name}`).waitFor({ state: "detached", timeout: 10_000 })
    }
    const clockApp = { server: "clock", uri: clockUri }

    await scenario(
      "MCP Apps: a server's app is shown sandboxed; its calls are asked about as the app's, recorded as the app's, denied ones never sent",
      async () => {
        const item = await addAppServer("clock", clockServer.url, "get-time")
        // the app-only tool is no app of its own
        expect(await page.getByTestId("app-clock__report").count() === 0, "the app-only tool is listed as an app")
        await noOverflow("with the MCP Apps panel")

        // opening the app runs its tool: asked, like any call
        const from = clockServer.requests.length
        const reports = clockServer.reports.length
        await item.getByRole("button", { name: "Open app" }).click()
        await item.getByTestId("app-status").filter({ hasText: "Awaiting approval" }).waitFor({ timeout: 15_000 })
        await decide("get-time", "Approve once", undefined)
        await appFrame.waitFor({ timeout: 15_000 })
        const sandbox = await appFrame.getAttribute("sandbox")
        expect(sandbox === "allow-scripts", `sandbox: ${sandbox}`)
        const policy = await appFrame.getAttribute("csp")
        expect(
          policy !== null && policy.includes(`connect-src ${new URL(clockServer.url).origin};`),
          `csp: ${policy}`
        )
        // the app calls its app-only tool on its own: asked in the console, then sent
        expect(!clockServer.calls().slice(from).includes("report"), "the app's call reached the server before approval")
        await decide("report", "Approve once", clockApp)
        expect(await until(() => clockServer.reports.length > reports), "the server received no report from the app")
        const report = clockServer.reports.at(-1)!
        expect(
          report.declared === "reached" && report.undeclared === "blocked",
          `the app's fetches: ${JSON.stringify(report)}`
        )
        const frame = page.frameLocator("iframe[data-mcp-app]")
        await frame.locator("#time").filter({ hasText: "12:00" }).waitFor({ timeout: 15_000 })
        const appRow = page.getByTestId("history-row").filter({ hasText: "report" }).filter({
          hasText: "Completed"
        })
        await appRow.first().waitFor({ timeout: 15_000 })
        expect(
          await appRow.first().getByTestId("history-origin").textContent() === `app ${clockUri}`,
          "the history does not show the app as the call's origin"
        )
        await noOverflow("with the app open")

        // a call the user makes inside the app: asked; approved, it reaches the server
        let before = clockServer.calls().length
        await frame.locator("#now").click()
        await decide("get-time", "Approve once", clockApp)
        expect(
          await until(() => clockServer.calls().slice(before).includes("get-time")),
          "the app's approved call did not reach the server"
        )
        const appCalls = page.getByTestId("history-row").filter({ hasText: "get-time" }).filter({
          has: page.getByTestId("history-origin")
        })
        await appCalls.filter({ hasText: "Completed" }).first().waitFor({ timeout: 15_000 })

        // denied: the app is told, the server receives nothing
        before = clockServer.calls().length
        await frame.locator("#now").click()
        await decide("get-time", "Deny", clockApp)
        await frame.locator("#time").filter({ hasText: /refused/ }).waitFor({ timeout: 15_000 })
        await appCalls.filter({ hasText: "Denied" }).first().waitFor({ timeout: 15_000 })
        await page.waitForTimeout(300)
        expect(
          clockServer.calls().length === before,
          `the server received ${clockServer.calls().slice(before).join(", ")} after a denial`
        )
        await page.screenshot({ path: join(results, "mcp-app.png"), fullPage: true })
        await removeAppServer("clock", item)
      }
    )

    await scenario(
      "MCP Apps: the official basic-vanillajs app renders with nothing declared allowed; its call is asked about and recorded as the app's",
      async () => {
        const item = await addAppServer("vanilla", vanillaServer.url, "get-time")
        await item.getByRole("button", { name: "Open app" }).click()
        await decide("Get Time", "Approve once", undefined)
        await appFrame.waitFor({ timeout: 15_000 })
        const sandbox = await appFrame.getAttribute("sandbox")
        expect(sandbox === "allow-scripts", `sandbox: ${sandbox}`)
        const none = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }
        const policy = await appFrame.getAttribute("csp")
        expect(policy === McpApps.contentSecurityPolicy(none), `csp: ${policy}`)
        const before = vanillaServer.calls().length
        const uri = "ui://get-time/mcp-app.html"
        await page.frameLocator("iframe[data-mcp-app]").getByRole("button", { name: /get server time/i }).click()
        await decide("Get Time", "Approve once", { server: "vanilla", uri })
        expect(
          await until(() => vanillaServer.calls().slice(before).includes("get-time")),
          "the app's approved call did not reach the server"
        )
        await page.getByTestId("history-row").filter({ hasText: "Completed" }).filter({
          has: page.getByTestId("history-origin").filter({ hasText: `app ${uri}` })
        }).first().waitFor({ timeout: 15_000 })
        await noOverflow("with the official app open")
        await removeAppServer("vanilla", item)
      }
    )

    await scenario(
      "server-everything: Test saves nothing, Save adds, Cancel never removes a saved server",
      async () => {
        await page.locator("select[name=approval-mode]").selectOption("auto")
        await page.getByRole("button", { name: "Add Server" }).waitFor()
        const from = ev.requests.length
        await page.getByRole("button", { name: "Add Server" }).click()
        await page.locator("input[name=server-name]").fill("everything")
        await page.locator("input[name=server-url]").fill(ev.url)
        await page.getByRole("button", { name: "Test Connection" }).click()
        await waitText("test-result", /Connected/)
        const tested = await page.getByTestId("test-session").textContent()
        expect(await page.getByTestId("server-everything").count() === 0, "Test Connection saved the server")
        await page.getByRole("button", { name: "Cancel" }).click()
        expect(
          await until(() =>
            ev.requests.slice(from).some((r) => r.method === "DELETE" && r.headers["mcp-session-id"] === tested)
          ),
          "Cancel left the test's session open on the server"
        )
        await page.reload()
        await page.getByRole("button", { name: "Add Server" }).waitFor()
        await page.waitForTimeout(500)
        expect(
          await page.getByTestId("server-everything").count() === 0,
          "a cancelled test is in the list after a reload"
        )

        await addEverything()
        // the same name again: test, then Cancel: the saved server stays
        await page.getByRole("button", { name: "Add Server" }).click()
        await page.locator("input[name=server-name]").fill("everything")
        await page.locator("input[name=server-url]").fill(ev.url)
        await page.getByRole("button", { name: "Test Connection" }).click()
        await waitText("test-result", /Connected/)
        await page.getByRole("button", { name: "Cancel" }).click()
        await page.reload()
        await page.getByTestId("status-everything").filter({ hasText: "Connected" }).waitFor({ timeout: 20_000 })
      }
    )

    await scenario("server-everything: nothing is off screen at 1400x900", async () => {
      await addEverything()
      await evItem("echo").waitFor({ timeout: 15_000 })
      await page.locator("select[name=model-server]").selectOption("*")
      await noOverflow("with server-everything's tools")
      for (const button of ["Reconnect", "Remove"]) {
        const box = await page.getByTestId("server-everything").getByRole("button", { name: button }).boundingBox()
        expect(
          box !== null && box.x >= 0 && box.x + box.width <= 1400,
          `${button} is off screen: ${JSON.stringify(box)}`
        )
      }
      const runner = await openEv("get-sum")
      const run = await runner.getByRole("button", { name: "Run" }).boundingBox()
      expect(run !== null && run.x + run.width <= 1400, `Run is off screen: ${JSON.stringify(run)}`)
      await noOverflow("with a runner open")
    })

    await scenario(
      "server-everything: the elicitation form follows the schema, a refused answer says why, the dialog scrolls",
      async () => {
        await addEverything()
        const from = ev.requests.length
        const runner = await runEv("trigger-elicitation-request")
        await elicitation.waitFor({ timeout: 15_000 })
        await fitsOrScrolls(elicitation, "elicitation")
        await noOverflow("with the elicitation dialog")
        await page.screenshot({ path: join(results, "everything-elicitation.png") })
        const form = elicitation.getByTestId("elicitation-form")
        // titles as labels, defaults filled in, titled selects and multi-selects
        expect(await form.getByText("String with default").count() === 1, "the title is not the label")
        expect(
          await form.locator("input[name=firstLine]").inputValue() === "It was a dark and stormy night.",
          "the default is not filled in"
        )
        expect(await form.locator("input[name=integer]").inputValue() === "42", "the integer default is not filled in")
        expect(
          await form.locator("select[name=titledSingleSelectEnum] option", { hasText: "Green Lantern" }).count() === 1,
          "no titled option"
        )
        expect(
          await form.locator("select[name=legacyTitledEnum] option", { hasText: "Dogs" }).count() === 1,
          "enumNames not shown"
        )
        expect(
          await form.locator(`input[name="titledMultipleSelectEnum:fish-1"]`).isChecked(),
          "the multi-select default is not checked"
        )
        expect(await form.getByText("Salmon").count() === 1, "no titled checkbox")
        // out of range: refused by the library, shown with the reason, nothing sent
        await form.locator("input[name=name]").fill("Ada")
        await form.locator("input[name=integer]").fill("500")
        await elicitation.getByRole("button", { name: "Send" }).click()
        await elicitation.getByTestId("elicitation-rejected").waitFor({ timeout: 10_000 })
        expect(
          !ev.requests.slice(from).some((r) => evBody(r)?.result !== undefined),
          "a refused answer reached the server"
        )
        await form.locator("input[name=integer]").fill("7")
        await form.locator(`input[name="titledMultipleSelectEnum:fish-2"]`).check()
        await elicitation.getByRole("button", { name: "Send" }).click()
        await elicitation.waitFor({ state: "hidden", timeout: 15_000 })
        await runner.getByTestId("call-result").filter({ hasText: /Favorite Integer: 7/ }).first().waitFor({
          timeout: 15_000
        })
        const answer = ev.requests.slice(from).find((r) => evBody(r)?.result?.action === "accept")
        const content = evBody(answer!)?.result?.content
        expect(
          content?.integer === 7 && content?.titledSingleSelectEnum === "hero-1" &&
            JSON.stringify(content?.titledMultipleSelectEnum) === JSON.stringify(["fish-1", "fish-2"]),
          `the server received ${JSON.stringify(content)}`
        )
      }
    )

    await scenario("server-everything: an image result is shown as an image", async () => {
      await addEverything()
      const runner = await runEv("get-tiny-image")
      const image = runner.getByTestId("call-image").first()
      await image.waitFor({ timeout: 15_000 })
      expect(await image.evaluate((img) => (img as HTMLImageElement).naturalWidth > 0), "the image does not load")
    })

    await scenario("server-everything: re-run while running shows the new run, never Cancelled", async () => {
      await addEverything()
      const from = ev.requests.length
      const runner = await runEv("trigger-long-running-operation", { duration: "3", steps: "3" })
      await runner.getByTestId("progress").waitFor({ timeout: 15_000 })
      await runner.getByRole("button", { name: "Run" }).click()
      await page.waitForTimeout(300)
      expect(await statusOf(runner) === "Running", `after a re-run: ${await statusOf(runner)}`)
      await waitStatus(runner, /Completed/, 20_000)
      expect(evCalls(from, "trigger-long-running-operation").length === 2, "the server did not receive both runs")
      expect(
        await until(() => ev.requests.slice(from).some((r) => evBody(r)?.method === "notifications/cancelled")),
        "the first run was not cancelled at the server"
      )
    })

    await scenario("server-everything: 8 cancels in a row, then a call and an elicitation round trip", async () => {
      await addEverything()
      const from = ev.requests.length
      const runner = await openEv("trigger-long-running-operation")
      await runner.locator("input[name=duration]").fill("30")
      await runner.locator("input[name=steps]").fill("30")
      for (let i = 0; i < 8; i++) {
        await runner.getByRole("button", { name: "Run" }).click()
        await waitStatus(runner, /Running/)
        await runner.getByRole("button", { name: "Cancel" }).click()
        await waitStatus(runner, /Cancelled/)
      }
      expect(
        await until(() =>
          ev.requests.slice(from).filter((r) => evBody(r)?.method === "notifications/cancelled").length === 8
        ),
        `the server received ${
          ev.requests.slice(from).filter((r) => evBody(r)?.method === "notifications/cancelled").length
        } cancellations`
      )
      const echo = await runEv("echo", { message: "after eight cancels" })
      await echo.getByTestId("call-result").filter({ hasText: /after eight cancels/ }).waitFor({ timeout: 10_000 })
      await elicitRoundTrip("Grace")
      // a session holds its GET stream and the requests really in flight, nothing more
      expect(await until(() => ev.open() <= 2), `${ev.open()} answers still open at the server`)
    })

    await scenario(
      "server-everything: a reload marks the running call Interrupted and resumes the session it left",
      async () => {
        await addEverything()
        const before = await sessionOf("everything")
        const runner = await runEv("trigger-long-running-operation", { duration: "20", steps: "20" })
        await waitStatus(runner, /Running/)
        await historyHas("trigger-long-running-operation", "Running")
        const from = ev.requests.length
        await page.reload()
        await page.getByTestId("status-everything").filter({ hasText: "Connected" }).waitFor({ timeout: 20_000 })
        await historyHas("trigger-long-running-operation", "Interrupted")
        const after = await sessionOf("everything")
        const initialized = ev.requests.slice(from).some((r) => evBody(r)?.method === "initialize")
        const closed = ev.requests.some((r) => r.method === "DELETE" && r.headers["mcp-session-id"] === before)
        // no session piles up: the one left is resumed (or, failing that, closed)
        expect(
          (after === before && !initialized) || closed,
          `before ${before}, after ${after}, new initialize: ${initialized}, closed: ${closed}`
        )
        const echo = await runEv("echo", { message: "after the reload" })
        await echo.getByTestId("call-result").filter({ hasText: /after the reload/ }).waitFor({ timeout: 15_000 })
        const echoed = ev.requests.slice(from).find((r) =>
          evBody(r)?.method === "tools/call" && evBody(r)?.params?.name === "echo"
        )
        expect(echoed?.headers["mcp-session-id"] === after, "the call did not go in the session shown")
      }
    )

    await scenario("server-everything: a second load shows no console errors", async () => {
      await addEverything()
      await page.reload()
      await page.getByTestId("status-everything").filter({ hasText: "Connected" }).waitFor({ timeout: 20_000 })
      loggedErrors.length = 0
      await page.reload()
      await page.getByTestId("status-everything").filter({ hasText: "Connected" }).waitFor({ timeout: 20_000 })
      await page.waitForFunction(
        () =>
          Array.from(document.querySelectorAll("[data-testid^=status-]")).every((e) =>
            !/Connecting|Reconnecting/.test(e.textContent ?? "")
          ),
        undefined,
        { timeout: 20_000 }
      )
      await page.waitForTimeout(1000)
      expect(loggedErrors.length === 0, `console errors: ${loggedErrors.join(" | ")}`)
    })

    await scenario(
      "server-everything: a name moved to another URL sends nothing of the old server's session there",
      async () => {
        await addEverything()
        const add = async (url: string) => {
          await page.getByRole("button", { name: "Add Server" }).click()
          await page.locator("input[name=server-name]").fill("moved")
          await page.locator("input[name=server-url]").fill(url)
          await page.getByRole("button", { name: "Save" }).click()
          await page.getByTestId("server-moved").waitFor({ timeout: 10_000 })
        }
        await add(mcpUrl)
        await page.getByTestId("status-moved").filter({ hasText: "Connected" }).waitFor({ timeout: 20_000 })
        const old = await sessionOf("moved")
        await page.getByTestId("server-moved").getByRole("button", { name: "Remove" }).click()
        await page.getByTestId("server-moved").waitFor({ state: "detached", timeout: 10_000 })
        const from = ev.requests.length
        await add(ev.url)
        await until(() => ev.requests.length > from)
        await page.waitForTimeout(2_000)
        const leaked = ev.requests.slice(from).filter((r) => r.headers["mcp-session-id"] === old)
        expect(
          leaked.length === 0,
          `${leaked.length} requests to the new URL carried the old server's session (${old})`
        )
        await page.getByTestId("status-moved").filter({ hasText: "Connected" }).waitFor({ timeout: 20_000 })
        expect(ev.requests.slice(from).some((r) => evBody(r)?.method === "initialize"), "no initialize at the new URL")
        await page.getByTestId("server-moved").getByRole("button", { name: "Remove" }).click()
        await page.getByTestId("server-moved").waitFor({ state: "detached", timeout: 10_000 })
      }
    )

    await scenario(
      "server-everything: killed, the state leaves Connected; restarted, it recovers on its own",
      async () => {
        await addEverything()
        const before = await sessionOf("everything")
        await ev.kill()
        const killedAt = Date.now()
        await page.getByTestId("status-everything").filter({ hasText: /Reconnecting|Connecting|Failed/ }).waitFor({
          timeout: 15_000
        })
        const noticedIn = Date.now() - killedAt
        // counted from before the restart: the client may reconnect while `restart` still waits for the port
        const from = ev.requests.length
        await ev.restart()
        await page.getByTestId("status-everything").filter({ hasText: "Connected" }).waitFor({ timeout: 30_000 })
        expect(
          ev.requests.slice(from).some((r) => evBody(r)?.method === "initialize"),
          "no new initialize after the restart"
        )
        const after = await sessionOf("everything")
        expect(!!after && after !== before, `the session shown after the restart is the dead server's (${before})`)
        const echo = await runEv("echo", { message: "after restart" })
        await echo.getByTestId("call-result").filter({ hasText: /after restart/ }).waitFor({ timeout: 15_000 })
        console.log(`        (state left Connected ${noticedIn} ms after the kill)`)
      }
    )

    await scenario(
      "OAuth without a client id where the server offers no registration: the console says a client id is needed",
      async () => {
        const registrationsBefore = auth.grants.length
        await page.getByRole("button", { name: "Add Server" }).click()
        await page.locator("input[name=server-name]").fill("no-client")
        await page.locator("input[name=server-url]").fill(secureUrl)
        await page.locator("select[name=auth]").selectOption("oauth2")
        await page.getByRole("button", { name: "Authorize" }).click()
        await page.getByTestId("test-result").filter({ hasText: /needs a client id/ }).waitFor({ timeout: 20_000 })
        expect(auth.grants.length === registrationsBefore, "a token was issued without a client id")
        await page.getByRole("button", { name: "Cancel" }).click()
        expect(await page.getByTestId("server-no-client").count() === 0, "the failed test saved the server")
      }
    )

    /** Fills the Add server form for the OAuth server and clicks Authorize; yields the sign-in window. */
    const authorizeIn = async (name: string, client: string) => {
      await page.getByRole("button", { name: "Add Server" }).click()
      await page.locator("input[name=server-name]").fill(name)
      await page.locator("input[name=server-url]").fill(secureUrl)
      await page.locator("select[name=auth]").selectOption("oauth2")
      await page.locator("input[name=client-id]").fill(client)
      return signInWindow(() => page.getByRole("button", { name: "Authorize" }).click())
    }
    const signInWindow = async (click: () => Promise<void>) => {
      const opened = context!.waitForEvent("page")
      await click()
      const popup = await opened
      await popup.waitForLoadState()
      return popup
    }
    const tokenRequests = () => auth.grants.length + auth.grantErrors.length
    const bearersFor = (from: number) =>
      reqs.slice(from).filter((r) => r.path === "/secure/mcp" && String(r.headers.authorization).startsWith("Bearer "))
    const testResult = page.getByTestId("test-result")

    await scenario(
      "OAuth sign-in window closed by the user: the console says so within seconds, no token is requested",
      async () => {
        signInPage = "hold"
        try {
          const from = reqs.length
          const tokens = tokenRequests()
          const popup = await authorizeIn("closed-popup", popupClientIds[0])
          await page.getByTestId("sign-in").filter({ hasText: /Signing in at 127\.0\.0\.1/ }).waitFor({
            timeout: 10_000
          })
          await popup.close()
          const closedAt = Date.now()
          const notice = page.getByTestId("sign-in").filter({ hasText: /The sign-in window was closed/ })
          await notice.waitFor({ timeout: 5_000 })
          const noticedIn = Date.now() - closedAt
          await page.screenshot({ path: join(results, "sign-in-window-closed.png") })
          expect(
            await notice.getByRole("button", { name: "Reopen sign-in window" }).count() === 1,
            "no Reopen sign-in window"
          )
          const badge = await page.getByTestId("status-closed-popup").textContent()
          expect(badge === "Signing in", `the status says ${badge} while the connection waits for the sign-in`)
          // Cancel sign-in really ends it: the connection says so
          await notice.getByRole("button", { name: "Cancel sign-in" }).click()
          await testResult.filter({ hasText: /The sign-in was cancelled/ }).waitFor({ timeout: 5_000 })
          expect(await page.getByTestId("sign-in").count() === 0, "the sign-in is still listed after Cancel sign-in")
          expect(tokenRequests() === tokens, `${tokenRequests() - tokens} token requests`)
          expect(bearersFor(from).length === 0, "a request carried a token")
          await page.getByRole("button", { name: "Cancel" }).click()
          console.log(`        (the console said the window was closed ${noticedIn} ms after it closed)`)
        } finally {
          signInPage = undefined
        }
      }
    )

    await scenario("OAuth sign-in cancelled while its window is open, then signed in", async () => {
      const from = reqs.length
      const codes = auth.grants.filter((g) => g === "authorization_code").length
      signInPage = "hold"
      let popup: Page
      try {
        popup = await authorizeIn("cancelled", popupClientIds[0])
        await page.getByTestId("sign-in").filter({ hasText: /Signing in at/ }).getByRole("button", {
          name: "Cancel sign-in"
        }).click()
        await testResult.filter({ hasText: /The sign-in was cancelled/ }).waitFor({ timeout: 5_000 })
        expect(await until(() => popup.isClosed()), "the sign-in window stayed open after Cancel sign-in")
        expect(
          auth.grants.filter((g) => g === "authorization_code").length === codes,
          "the cancelled sign-in exchanged a code"
        )
      } finally {
        signInPage = undefined
      }
      // the next sign-in goes through
      popup = await signInWindow(() => page.getByRole("button", { name: "Authorize" }).click())
      await waitText("test-result", /Connected/)
      expect(auth.grants.filter((g) => g === "authorization_code").length === codes + 1, "no code was exchanged")
      expect(bearersFor(from).length > 0, "no request carried the token")
      await page.getByRole("button", { name: "Cancel" }).click()
    })

    await scenario(
      "OAuth sign-in page with Cross-Origin-Opener-Policy: the window reads closed, the sign-in still completes",
      async () => {
        const codes = auth.grants.filter((g) => g === "authorization_code").length
        signInPage = "hold-coop"
        try {
          const popup = await authorizeIn("coop", popupClientIds[1])
          // COOP cut the opener's link: to the page the window reads as closed, though the user is on the sign-in page
          const notice = page.getByTestId("sign-in").filter({ hasText: /The sign-in window was closed/ })
          await notice.waitFor({ timeout: 5_000 })
          expect(!popup.isClosed(), "the sign-in window is really gone")
          await popup.locator("#sign-in").click()
          await waitText("test-result", /Connected/)
          expect(auth.grants.filter((g) => g === "authorization_code").length === codes + 1, "no code was exchanged")
          expect(await page.getByTestId("sign-in").count() === 0, "the sign-in is still listed")
        } finally {
          signInPage = undefined
        }
        await page.getByRole("button", { name: "Cancel" }).click()
      }
    )

    await scenario("OAuth sign-in window closed, then Reopen sign-in window signs in", async () => {
      const codes = auth.grants.filter((g) => g === "authorization_code").length
      signInPage = "hold"
      try {
        const first = await authorizeIn("reopen", popupClientIds[2])
        await page.getByTestId("sign-in").filter({ hasText: /Signing in at/ }).waitFor({ timeout: 10_000 })
        await first.close()
        const notice = page.getByTestId("sign-in").filter({ hasText: /The sign-in window was closed/ })
        await notice.waitFor({ timeout: 5_000 })
        const second = await signInWindow(() => notice.getByRole("button", { name: "Reopen sign-in window" }).click())
        await page.getByTestId("sign-in").filter({ hasText: /Signing in at/ }).waitFor({ timeout: 5_000 })
        await second.locator("#sign-in").click()
        await waitText("test-result", /Connected/)
        expect(auth.grants.filter((g) => g === "authorization_code").length === codes + 1, "no code was exchanged")
      } finally {
        signInPage = undefined
      }
      await page.getByRole("button", { name: "Cancel" }).click()
    })

    await scenario(
      "OAuth client id the authorization server refuses (invalid_client): the console says so",
      async () => {
        const from = reqs.length
        const refused = auth.grantErrors.filter((e) => e === "invalid_client").length
        await authorizeIn("refused-client", confidentialClientId)
        await testResult.filter({ hasText: /refused this client id \(invalid_client\)/ }).waitFor({ timeout: 15_000 })
        expect(
          auth.grantErrors.filter((e) => e === "invalid_client").length === refused + 1,
          `token requests refused with invalid_client: ${auth.grantErrors.join(", ")}`
        )
        expect(bearersFor(from).length === 0, "a request carried a token")
        expect(!/Reconnecting/.test(await testResult.textContent() ?? ""), "a refused client is retried")
        await page.getByRole("button", { name: "Cancel" }).click()
        expect(await page.getByTestId("server-refused-client").count() === 0, "the failed test saved the server")
      }
    )

    await scenario("Removing a server removes it, its session and its tokens", async () => {
      const tokensBefore = await page.evaluate(dumpIndexedDb, "mcp-console-tokens")
      await page.getByTestId("server-secure").getByRole("button", { name: "Remove" }).click()
      await page.getByTestId("server-secure").waitFor({ state: "detached", timeout: 10_000 })
      let tokensAfter = tokensBefore
      const deadline = Date.now() + 10_000
      while (Date.now() < deadline && tokensAfter.records >= tokensBefore.records) {
        await page.waitForTimeout(200)
        tokensAfter = await page.evaluate(dumpIndexedDb, "mcp-console-tokens")
      }
      expect(
        tokensAfter.records < tokensBefore.records,
        `token records: ${tokensBefore.records} before, ${tokensAfter.records} after`
      )
      await page.reload()
      await page.getByTestId("status-demo").filter({ hasText: "Connected" }).waitFor({ timeout: 15_000 })
      expect(await page.getByTestId("server-secure").count() === 0, "the removed server came back after a reload")
    })
  } finally {
    await context?.close().catch(() => undefined)
    await everything?.close().catch(() => undefined)
    await clock?.close().catch(() => undefined)
    await vanilla?.close().catch(() => undefined)
    await servers.close()
    await app.close()
    await rm(userDataDir, { recursive: true, force: true })
  }
  const failed = outcomes.filter((o) => o.error !== undefined).length
  console.log(`(${((Date.now() - startedAt) / 1000).toFixed(1)} s)`)
  await report(outcomes.length - failed, failed)
}

/** Debian's Chromium, as `.ci/run` installs it for the browser suite (playwright-core downloads no browser). */
const installChromium = () => {
  console.log(`no Chromium at ${chromiumPath}: installing Debian's chromium`)
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  for (const args of [["update"], ["install", "-y", "chromium"]]) {
    const run = spawnSync("apt-get", args, { stdio: "inherit", env })
    if (run.status !== 0) throw new Error(`apt-get ${args.join(" ")} failed: install chromium or set CHROMIUM_PATH`)
  }
  if (!existsSync(chromiumPath)) throw new Error(`still no Chromium at ${chromiumPath}`)
}

/** Every record of an IndexedDB database as text (binary values as latin1), to look for secrets in plain text. */
const dumpIndexedDb = async (name: string): Promise<{ readonly records: number; readonly text: string }> => {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(name)
    open.onsuccess = () => resolve(open.result)
    open.onerror = () => reject(open.error)
  })
  const toText = (value: unknown): string => {
    if (value instanceof ArrayBuffer) return String.fromCharCode(...new Uint8Array(value))
    if (ArrayBuffer.isView(value)) return String.fromCharCode(...new Uint8Array(value.buffer))
    if (typeof value === "object" && value !== null) return Object.values(value).map(toText).join(" ")
    return String(value)
  }
  let records = 0
  let text = ""
  for (const store of Array.from(db.objectStoreNames)) {
    const all = await new Promise<Array<unknown>>((resolve, reject) => {
      const request = db.transaction(store).objectStore(store).getAll()
      request.onsuccess = () => resolve(request.result)
      request.onerror = () => reject(request.error)
    })
    records += all.length
    text += all.map(toText).join("\n")
  }
  db.close()
  return { records, text }
}

const report = async (passed: number, failed: number) => {
  await mkdir(".cache", { recursive: true })
  await writeFile(".cache/e2e-report.json", JSON.stringify({ passed, failed }))
  console.log(`e2e: ${passed} passed, ${failed} failed`)
  process.exitCode = failed === 0 ? 0 : 1
}

// Everything of ours is closed by now, but playwright-core keeps a timer of its own
// for about a minute after the browser has gone: end the process instead of waiting.
main().catch(async (error) => {
  console.error(error)
  await report(0, 1)
}).finally(() => process.exit())
