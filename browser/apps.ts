/**
 * The MCP Apps scenarios of the real-browser suite: a page built on the
 * React bindings (`browser/page/apps.ts`, `<McpApp>` over a `BrowserHub`
 * with `AppHost`) renders the official example apps from npm and this
 * suite's own clock app, each server on 127.0.0.1. Checked on the servers'
 * records and in the iframe itself: the sandbox and CSP match the resource's
 * declaration (and the browser enforces it), a tool call from inside an app
 * goes through approval and the history (denied: the server receives
 * nothing), an app-only tool is in no model-facing format, a changed UI is
 * asked about again; against 2026-07-28 (the official servers) and
 * 2025-11-25 (the clock) servers.
 */
import * as esbuild from "esbuild"
import { fileURLToPath } from "node:url"
import type { Page } from "playwright-core"
import * as McpApps from "../packages/core/src/McpApps.js"
import { browserBuild } from "./bundle.js"
import { type AppServer, type ClockApp, clockUri, startClockApp, startOfficialApp } from "./servers/apps.js"

type Scenario = (name: string, expected: ReadonlyArray<RegExp>, body: () => Promise<void>) => Promise<void>

interface Harness {
  readonly start: (
    servers: Record<string, string>
  ) => Promise<ReadonlyArray<{ name: string; status: string; protocolVersion: string; error: string }>>
  readonly stop: () => Promise<void>
  readonly mount: (server: string, tool: string) => Promise<void>
  readonly unmount: () => void
  readonly history: () => Promise<ReadonlyArray<{ server: string; tool: string; status: string; origin: string }>>
  readonly modelFacing: (server: string) => Promise<Record<string, ReadonlyArray<string>>>
  readonly setDecision: (decision: "approve" | "deny") => void
  readonly asked: () => ReadonlyArray<{ tool: string; server: string }>
}
declare const appsHarness: Harness

const expect = (condition: unknown, what: string): void => {
  if (!condition) throw new Error(what)
}

const until = async (check: () => Promise<boolean> | boolean, what: string, ms = 10_000) => {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`timed out: ${what}`)
}

const bundleAppsPage = async () => {
  const result = await esbuild.build({
    ...browserBuild,
    entryPoints: [fileURLToPath(new URL("./page/apps.ts", import.meta.url))],
    define: { "process.env.NODE_ENV": "\"production\"" }
  })
  return result.outputFiles[0]!.text
}

const frameSelector = "iframe[data-mcp-app]"

export const appsScenarios = async (page: Page, pageOrigin: string, scenario: Scenario): Promise<void> => {
  const undeclared = "http://127.0.0.1:9/undeclared"
  const servers: Array<AppServer> = []
  try {
    const basicReact = await startOfficialApp("@modelcontextprotocol/server-basic-react", pageOrigin)
    servers.push(basicReact)
    const vanilla = await startOfficialApp("@modelcontextprotocol/server-basic-vanillajs", pageOrigin)
    servers.push(vanilla)
    const monitor = await startOfficialApp("@modelcontextprotocol/server-system-monitor", pageOrigin)
    servers.push(monitor)
    const clock: ClockApp = await startClockApp(pageOrigin, undeclared, "2025-11-25")
    servers.push(clock)
    const clock26: ClockApp = await startClockApp(pageOrigin, undeclared, "2026-07-28")
    servers.push(clock26)
    await page.addScriptTag({ content: await bundleAppsPage(), type: "module" })
    await page.waitForFunction(() => (globalThis as { appsHarness?: unknown }).appsHarness !== undefined)
    const urls = {
      react: basicReact.url,
      vanilla: vanilla.url,
      monitor: monitor.url,
      clock: clock.url,
      clock26: clock26.url
    }
    const frame = () => page.frameLocator(frameSelector)
    // the clock's probe of an undeclared origin is refused by the policy, and Chromium says so
    // and its probe of the declared origin (its own server) reaches it: a bare POST the server answers 406 or 400
    const csp = [/Content Security Policy/, /Failed to fetch/, /status of 40[06]/]
    // the page's own bundle probes each server's era first; the official servers speak 2026-07-28
    // the 2025-era servers refuse the client's era probe with HTTP 400, which Chromium logs
    const probe400 = [/status of 400/]
    const started = await page.evaluate((u) => appsHarness.start(u), urls)

    const eras: Record<string, string> = {
      react: "2025-11-25",
      vanilla: "2025-11-25",
      monitor: "2025-11-25",
      clock: "2025-11-25",
      clock26: "2026-07-28"
    }
    await scenario(
      "MCP Apps: every app server connects, in the era it speaks (2025-11-25, 2026-07-28)",
      [],
      async () => {
        const by = new Map(started.map((s) => [s.name, s]))
        for (const [name, era] of Object.entries(eras)) {
          expect(by.get(name)?.status === "Connected", `${name}: ${JSON.stringify(by.get(name))}`)
          expect(by.get(name)?.protocolVersion === era, `${name} speaks ${by.get(name)?.protocolVersion}`)
        }
      }
    )

    for (const [name, server] of [["react", basicReact], ["vanilla", vanilla]] as const) {
      await scenario(
        `MCP Apps: official basic-${name} renders sandboxed; its tool call is approved, recorded as the app's, and reaches the server`,
        [...probe400, /ApprovalDenied/],
        async () => {
          await page.evaluate(() => appsHarness.setDecision("approve"))
          await page.evaluate((s) => appsHarness.mount(s, "get-time"), name)
          await page.waitForSelector(frameSelector)
          const sandbox = await page.getAttribute(frameSelector, "sandbox")
          expect(sandbox === "allow-scripts", `sandbox: ${sandbox}`)
          const csp = await page.getAttribute(frameSelector, "csp")
          const none = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }
          expect(csp === McpApps.contentSecurityPolicy(none), `csp: ${csp}`)
          const srcdoc = (await page.getAttribute(frameSelector, "srcdoc")) ?? ""
          expect(srcdoc.includes(`content="${McpApps.contentSecurityPolicy(none)}"`), "the document carries no policy")
          await page.evaluate(() => appsHarness.asked())
          const before = server.calls().length
          await frame().getByRole("button", { name: /get server time/i }).click()
          await until(() => server.calls().length > before, "the server received the app's call")
          const asked = await page.evaluate(() => appsHarness.asked())
          expect(asked.some((a) => a.tool === "get-time"), `asked: ${JSON.stringify(asked)}`)
          const history = await page.evaluate(() => appsHarness.history())
          expect(
            history.some((h) =>
              h.server === name && h.tool === "get-time" && h.origin === "ui://get-time/mcp-app.html" &&
              h.status === "Completed"
            ),
            `history: ${JSON.stringify(history)}`
          )
          // denied: the server receives nothing
          await page.evaluate(() => appsHarness.setDecision("deny"))
          const count = server.calls().length
          await frame().getByRole("button", { name: /get server time/i }).click()
          await until(
            async () =>
              (await page.evaluate(() => appsHarness.history())).some((h) =>
                h.server === name && h.status === "Denied"
              ),
            "a Denied record"
          )
          await new Promise((r) => setTimeout(r, 300))
          expect(
            server.calls().length === count,
            `the server received ${server.calls().length - count} calls after a denial`
          )
          await page.evaluate(() => appsHarness.unmount())
        }
      )
    }

    await scenario(
      "MCP Apps: system-monitor's app-only tool is in no model-facing format, and its app calls it through approval",
      [],
      async () => {
        const facing = await page.evaluate(() => appsHarness.modelFacing("monitor"))
        expect(facing.listed!.includes("poll-system-stats"), `listed: ${facing.listed}`)
        for (const [format, names] of Object.entries(facing)) {
          if (format === "listed" || format === "appTools") continue
          expect(!names.some((n) => n.includes("poll-system-stats")), `${format} offers ${names.join(", ")}`)
        }
        expect(facing.appTools!.includes("poll-system-stats"), `app tools: ${facing.appTools}`)
        await page.evaluate(() => appsHarness.setDecision("approve"))
        await page.evaluate(() => appsHarness.mount("monitor", "get-system-info"))
        await until(
          () => monitor.calls().includes("poll-system-stats"),
          "the monitor's UI polled through the host",
          15_000
        )
        const history = await page.evaluate(() => appsHarness.history())
        expect(
          history.some((h) => h.server === "monitor" && h.tool === "poll-system-stats" && h.origin.startsWith("ui://")),
          `history: ${JSON.stringify(history.filter((h) => h.server === "monitor"))}`
        )
        await page.evaluate(() => appsHarness.unmount())
      }
    )

    for (const [name, server] of [["clock", clock], ["clock26", clock26]] as const) {
      const era = eras[name]
      await scenario(
        `MCP Apps (${era}): the browser enforces the declared CSP, the app's app-only call goes through the hub`,
        csp,
        async () => {
          await page.evaluate(() => appsHarness.setDecision("approve"))
          const reports = server.reports.length
          await page.evaluate((s) => appsHarness.mount(s, "get-time"), name)
          await page.waitForSelector(frameSelector)
          const policy = await page.getAttribute(frameSelector, "csp")
          expect(policy?.includes(`connect-src ${new URL(server.url).origin};`), `csp: ${policy}`)
          await until(() => server.reports.length > reports, "the clock reported its fetches")
          const report = server.reports.at(-1)!
          expect(report.declared === "reached" && report.undeclared === "blocked", `report: ${JSON.stringify(report)}`)
          await until(async () => (await frame().locator("#time").textContent()) === "12:00", "the tool result shown")
          const history = await page.evaluate(() => appsHarness.history())
          expect(
            history.some((h) =>
              h.server === name && h.tool === "report" && h.origin === clockUri && h.status === "Completed"
            ),
            `history: ${JSON.stringify(history.filter((h) => h.server === name))}`
          )
          const facing = await page.evaluate((s) => appsHarness.modelFacing(s), name)
          expect(
            !facing.registry!.includes("report") && !facing.openAiChat!.includes("report"),
            `model-facing: ${JSON.stringify(facing)}`
          )
          await page.evaluate(() => appsHarness.unmount())
        }
      )

      await scenario(
        `MCP Apps (${era}): a changed UI resource is asked about again before it renders or calls`,
        csp,
        async () => {
          server.setVersion(2)
          const calls = server.calls().length
          await page.evaluate((s) => appsHarness.mount(s, "get-time"), name)
          await page.waitForSelector(`[data-mcp-app-changed="${clockUri}"]`)
          expect(await page.locator(frameSelector).count() === 0, "the changed UI was rendered before approval")
          // the mount's own call is the model's; the app made none
          expect(server.calls().slice(calls).every((c) => c === "get-time"), `calls: ${server.calls().slice(calls)}`)
          await page.getByRole("button", { name: /approve the new ui/i }).click()
          await page.waitForSelector(frameSelector)
          await until(
            async () => (await frame().locator("#version").textContent()) === "clock v2",
            "the new UI rendered"
          )
          await until(() => server.calls().slice(calls).includes("report"), "the approved UI's call reached the server")
          await page.evaluate(() => appsHarness.unmount())
        }
      )

      await scenario(
        `MCP Apps (${era}): a frame that navigates away from its app is cut off the bridge`,
        csp,
        async () => {
          await page.evaluate(() => appsHarness.setDecision("approve"))
          await page.evaluate((s) => appsHarness.mount(s, "get-time"), name)
          await page.waitForSelector(frameSelector)
          await until(async () => (await frame().locator("#time").textContent()) === "12:00", "the app is running")
          // the app's own call gets through
          const before = server.calls().length
          await frame().locator("#now").click()
          await until(() => server.calls().length > before, "the app's call reached the server")
          const calls = server.calls().length
          await frame().locator("#leave").click()
          await until(async () => page.frames().some((f) => f.url().startsWith("data:")), "the frame navigated")
          await new Promise((r) => setTimeout(r, 500))
          expect(
            server.calls().length === calls,
            `the navigated frame's call reached the server (${server.calls().slice(calls)})`
          )
          await page.evaluate(() => appsHarness.unmount())
        }
      )
    }
  } finally {
    await page.evaluate(() => (globalThis as { appsHarness?: Harness }).appsHarness?.stop()).catch(() => undefined)
    for (const server of servers) await server.close()
  }
}
