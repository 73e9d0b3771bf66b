/**
 * The real-browser suite: Debian's Chromium driven by `playwright-core`, a
 * page on one loopback origin, an MCP server (official SDK, strict CORS) on
 * another, and `oidc-provider` on a third. Each scenario asserts what the
 * servers received, not only what the page reports, and no console error
 * may appear besides the ones a scenario expects (a 401 the flow answers, a
 * refused preflight). Ends with `browser: N passed, M failed`; exits 1 on
 * any failure. Everything binds 127.0.0.1 and is stopped at the end. The
 * last scenarios run against `@modelcontextprotocol/server-everything` over
 * Streamable HTTP (behind the e2e's recording proxy), the server most users
 * try first.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { startAuthServer } from "../packages/oauth/test/fixtures/authServer.js"
import { appsScenarios } from "./apps.js"
import { bundlePage, measureMinimalClient } from "./bundle.js"
import type { Harness, Outcome } from "./page/entry.js"
import { type Recorded as EverythingRecorded, startEverything } from "./servers/everything.js"
import { allowedHeaders, type McpFixture, type Recorded, startMcpFixture } from "./servers/mcpServer.js"
import { startPageServer } from "./servers/pageServer.js"
import { websocketScenarios } from "./websocket.js"

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

class Failed extends Error {}
const expect = (condition: unknown, what: string): void => {
  if (!condition) throw new Failed(what)
}
const value = <A>(outcome: Outcome<A>, what: string): A => {
  if (!outcome.ok) {
    throw new Failed(`${what}: ${outcome.error.tag} ${outcome.error.reason ?? ""} ${outcome.error.message}`)
  }
  return outcome.value
}

type H = Harness
declare const harness: H
declare const clicked: Promise<unknown>

const bodyOf = (r: Recorded) =>
  r.body as { method?: string; id?: unknown; params?: Record<string, unknown> } | undefined
const since = (requests: Array<Recorded>, from: number) => requests.slice(from)
const traceHeaders = (r: Recorded) => ["traceparent", "b3", "tracestate"].filter((h) => r.headers[h] !== undefined)
const requestedHeaders = (r: Recorded) =>
  String(r.headers["access-control-request-headers"] ?? "").split(",").map((h) => h.trim()).filter((h) => h !== "")

const main = async () => {
  const startedAt = Date.now()
  const size = await measureMinimalClient()
  const bundle = await bundlePage()
  const pages = await startPageServer(bundle)
  // eslint-disable-next-line prefer-const -- read by a callback made before it is assigned
  let mcp: McpFixture | undefined
  const auth = await startAuthServer({
    resource: () => `${mcp!.origin}/secure/mcp`,
    // a browser app is pre-registered: oidc-provider's registration endpoint has no CORS
    publicClients: [{ client_id: "browser-app", redirect_uris: [`${pages.origin}/popup`, `${pages.origin}/redirect`] }]
  })
  mcp = await startMcpFixture({
    pageOrigin: pages.origin,
    issuer: () => auth.issuer,
    introspection: auth.introspection
  })
  const userDataDir = await mkdtemp(join(tmpdir(), "mcp-effect-chromium-"))
  let context: BrowserContext | undefined
  const results: Array<{ readonly name: string; readonly error?: string }> = []
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: chromiumPath,
      headless: true,
      args: launchArgs,
      // the popup blocker is part of what is tested
      ignoreDefaultArgs: ["--disable-popup-blocking"]
    })
    const consoleErrors: Array<string> = []
    const watch = (page: Page) => {
      page.on("console", (message) => {
        if (message.type() === "error") consoleErrors.push(message.text())
      })
      page.on("pageerror", (error) => consoleErrors.push(`uncaught: ${error.message}`))
    }
    context.on("page", watch)
    const page = context.pages()[0] ?? await context.newPage()
    watch(page)
    const open = async (path = "/") => {
      await page.goto(`${pages.origin}${path}`)
      await page.waitForFunction(() => (globalThis as { harness?: unknown }).harness !== undefined)
    }
    await open()

    // BROWSER_ONLY=<regex>: only the scenarios whose name matches (while developing one)
    const only = process.env.BROWSER_ONLY === undefined ? undefined : new RegExp(process.env.BROWSER_ONLY, "i")
    const scenario = async (name: string, expected: ReadonlyArray<RegExp>, body: () => Promise<void>) => {
      if (only !== undefined && !only.test(name)) return
      consoleErrors.length = 0
      try {
        await body()
        const unexpected = consoleErrors.filter((text) => !expected.some((re) => re.test(text)))
        expect(unexpected.length === 0, `console errors: ${unexpected.join(" | ")}`)
        results.push({ name })
        console.log(`  ok    ${name}`)
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        results.push({ name, error: message })
        console.log(`  FAIL  ${name}\n        ${message}`)
      }
    }
    const http401 = /status of 401/
    const mcpUrl = `${mcp.origin}/mcp`
    const secureUrl = `${mcp.origin}/secure/mcp`
    const reqs = mcp.requests

    // --- transport ---------------------------------------------------------
    let from = reqs.length
    let sessionOutcome: Outcome<Awaited<ReturnType<H["session"]>> extends Outcome<infer A> ? A : never> | undefined
    // the client's first request is the 2026-07-28 era probe, whose `Mcp-*` headers this legacy server's
    // CORS does not allow: Chromium logs the refusal, and the client falls back to `initialize`
    const probeBlocked = [/CORS policy/, /ERR_FAILED/]
    const modernHeaders = ["mcp-method", "mcp-name"]
    await scenario("strict CORS: connect, list tools, call a tool", probeBlocked, async () => {
      sessionOutcome = await page.evaluate((url) => harness.session(url), mcpUrl)
      const result = value(sessionOutcome, "session")
      expect(result.tools.includes("echo") && result.tools.includes("slow"), `tools: ${result.tools.join(", ")}`)
      expect(result.echoed === "hello from chromium", `echo answered ${result.echoed}`)
      const posts = since(reqs, from).filter((r) => r.method === "POST")
      const methods = posts.map((r) => bodyOf(r)?.method)
      for (const m of ["initialize", "notifications/initialized", "tools/list", "tools/call"]) {
        expect(methods.includes(m), `the server received no ${m}`)
      }
      expect(posts.every((r) => r.headers.origin === pages.origin), "a POST came without the page's origin")
      const traced = since(reqs, from).filter((r) => traceHeaders(r).length > 0)
      expect(traced.length === 0, `${traced.length} requests carried trace headers`)
      const asked = since(reqs, from).filter((r) => r.method === "OPTIONS").flatMap(requestedHeaders)
      const refused = asked.filter((h) => !allowedHeaders.includes(h) && !modernHeaders.includes(h))
      expect(refused.length === 0, `preflights asked for ${refused.join(", ")}`)
      const probes = since(reqs, from).filter((r) =>
        r.method === "OPTIONS" && requestedHeaders(r).includes("mcp-method")
      )
      expect(probes.length === 1, `${probes.length} preflights for the modern era (the era is not kept)`)
    })
    const callOf = (tag: string) =>
      since(reqs, from).find((r) =>
        bodyOf(r)?.method === "tools/call" && (bodyOf(r)?.params?.arguments as { tag?: string })?.tag === tag
      )
    await scenario("progress notices reach the page", [], async () => {
      const result = value(sessionOutcome!, "session")
      expect(result.progress.length >= 2 && result.progress[0] === 1, `progress: ${result.progress.join(",")}`)
      expect(callOf("interrupted") !== undefined, "the server received no slow call")
    })
    await scenario("interrupting a call sends notifications/cancelled", [], async () => {
      const call = callOf("interrupted")
      const cancelled = since(reqs, from).find((r) => bodyOf(r)?.method === "notifications/cancelled")
      expect(cancelled !== undefined, "the server received no notifications/cancelled")
      expect(
        cancelled!.body && bodyOf(cancelled!)?.params?.requestId === bodyOf(call!)?.id,
        "cancelled names another request"
      )
      expect(mcp!.aborted.includes("interrupted"), "the tool's signal was not aborted")
    })
    await scenario("ping after the interrupt", [], async () => {
      const methods = since(reqs, from).map((r) => bodyOf(r)?.method)
      expect(methods.lastIndexOf("ping") > methods.indexOf("notifications/cancelled"), "no ping after the cancellation")
    })
    await scenario("GET stream opened, DELETE on close", [], async () => {
      const init = since(reqs, from).find((r) => r.method === "POST" && typeof r.headers["mcp-session-id"] === "string")
      const id = init?.headers["mcp-session-id"]
      expect(id !== undefined, "no request carried a session id")
      const get = since(reqs, from).find((r) => r.method === "GET" && r.headers["mcp-session-id"] === id)
      expect(get !== undefined && String(get.headers.accept).includes("text/event-stream"), "no GET stream")
      const del = since(reqs, from).find((r) => r.method === "DELETE" && r.headers["mcp-session-id"] === id)
      expect(del !== undefined, "no DELETE of the session")
    })
    await scenario("trace headers turned on against a strict server: a typed error, no retry loop", [
      /CORS policy/,
      /ERR_FAILED/
    ], async () => {
      from = reqs.length
      const outcome = await page.evaluate((url) => harness.connectOnly(url, true), mcpUrl)
      expect(!outcome.ok, "the connection succeeded")
      if (outcome.ok) return
      expect(outcome.error.tag === "TransportError", `failed with ${outcome.error.tag}: ${outcome.error.message}`)
      expect(/blocked \(CORS or network\)/.test(outcome.error.message), `message: ${outcome.error.message}`)
      expect(/traceparent/.test(outcome.error.message), `the message names no header: ${outcome.error.message}`)
      const preflights = since(reqs, from).filter((r) => r.method === "OPTIONS")
      // one for the era probe, one for initialize: no retry loop
      expect(preflights.length === 2, `${preflights.length} preflights (a retry loop)`)
      expect(
        preflights.every((p) => requestedHeaders(p).includes("traceparent")),
        "a preflight did not ask for traceparent"
      )
      expect(since(reqs, from).every((r) => r.method === "OPTIONS"), "a request passed the preflight")
    })

    await websocketScenarios(page, pages.origin, scenario)

    await appsScenarios(page, pages.origin, scenario)

    // --- server-everything over Streamable HTTP, as users first meet the library ----------------------
    const everything = await startEverything()
    try {
      const evFrom = everything.requests.length
      const evBody = (r: EverythingRecorded) => r.body as { method?: string; result?: { action?: string } } | undefined
      // its first connection probes the 2026-07-28 era, which server-everything answers 400
      await scenario("server-everything: 8 cancels in a row, then a call and an elicitation round trip", [
        /status of 400/
      ], async () => {
        const outcome = value(
          await page.evaluate((url) => harness.cancelsThenRoundTrip(url, 8), everything.url),
          "round trip"
        )
        expect(/after the cancels/.test(outcome.echoed), `echo answered ${outcome.echoed}`)
        expect(/Name: Chromium/.test(outcome.elicited), `the elicitation ended with ${outcome.elicited}`)
        const sent = everything.requests.slice(evFrom)
        const cancelled = sent.filter((r) => evBody(r)?.method === "notifications/cancelled").length
        expect(cancelled === 8, `the server received ${cancelled} cancellations`)
        expect(sent.some((r) => evBody(r)?.result?.action === "accept"), "the server received no elicitation answer")
        expect(sent.some((r) => r.method === "DELETE"), "the session was not closed")
      })
    } finally {
      await everything.close()
    }

    // --- token store -------------------------------------------------------
    const resource = `${mcp.origin}/secure/mcp?api_key=secret-in-url`
    await scenario("token store: save, reload, read", [], async () => {
      value(
        await page.evaluate(([r, i]) => harness.storeSave("store-a", r!, i!, "token-a"), [resource, auth.issuer]),
        "save"
      )
      await open()
      const read = value(
        await page.evaluate(([r, i]) => harness.storeRead("store-a", r!, i!), [resource, auth.issuer]),
        "read"
      )
      expect(read === "token-a", `read ${read}`)
    })
    await scenario("token store: record keys hold no URL", [], async () => {
      const keys = await page.evaluate(() => harness.storeKeys("store-a"))
      expect(keys.length === 1, `${keys.length} records`)
      expect(keys.every((k) => /^tokens:[0-9a-f]{64}$/.test(k)), `keys: ${keys.join(", ")}`)
    })
    await scenario("token store: a record under an older plain key is still read, then rekeyed", [], async () => {
      const legacy = `tokens:${JSON.stringify([resource, auth.issuer])}`
      await page.evaluate((k) => harness.storeToLegacyKey("store-a", k), legacy)
      const read = value(
        await page.evaluate(([r, i]) => harness.storeRead("store-a", r!, i!), [resource, auth.issuer]),
        "read"
      )
      expect(read === "token-a", `read ${read}`)
      const keys = await page.evaluate(() => harness.storeKeys("store-a"))
      expect(keys.length === 1 && /^tokens:[0-9a-f]{64}$/.test(keys[0]!), `keys: ${keys.join(", ")}`)
    })
    await scenario("token store: a tampered record is refused with a typed error", [], async () => {
      await page.evaluate(() => harness.storeTamper("store-a"))
      const outcome = await page.evaluate(([r, i]) => harness.storeRead("store-a", r!, i!), [resource, auth.issuer])
      expect(
        !outcome.ok && outcome.error.tag === "TokenStoreError" && /modified/.test(outcome.error.message),
        `outcome: ${JSON.stringify(outcome)}`
      )
    })
    await scenario(
      "token store: two tabs take a token's refresh lock one after the other (Web Locks)",
      [],
      async () => {
        const other = await context!.newPage()
        try {
          await other.goto(`${pages.origin}/`)
          await other.waitForFunction(() => (globalThis as { harness?: unknown }).harness !== undefined)
          const first = page.evaluate(([r, i]) => harness.storeHold("store-a", r!, i!, 400), [resource, auth.issuer])
          await new Promise((resolve) => setTimeout(resolve, 100))
          const second = other.evaluate(([r, i]) => harness.storeHold("store-a", r!, i!, 10), [resource, auth.issuer])
          const [a, b] = [value(await first, "first tab"), value(await second, "second tab")]
          expect(
            b.acquired >= a.released,
            `the second tab held the lock from ${b.acquired}, the first until ${a.released}`
          )
        } finally {
          await other.close()
        }
      }
    )
    await scenario("token store: no IndexedDB, localStorage fallback", [], async () => {
      const result = value(
        await page.evaluate(([r, i]) => harness.storeWithoutIndexedDb("store-b", r!, i!), [resource, auth.issuer]),
        "fallback"
      )
      expect(result.read === "fallback-token", `read ${result.read}`)
      expect(
        result.keys.length === 1 && /^store-b:tokens:[0-9a-f]{64}$/.test(result.keys[0]!),
        `keys: ${result.keys.join(", ")}`
      )
      await open()
    })

    // --- OAuth -------------------------------------------------------------
    // the token is sent once discovery ran: a new client's first request is answered 401, then carries the stored token
    const usedStoredToken = (from: number, authorizations: number) => {
      expect(auth.authorizations.length === authorizations, "a new authorization was asked for")
      const call = since(reqs, from).find((r) => bodyOf(r)?.method === "tools/call")
      expect(
        call !== undefined && String(call.headers.authorization).startsWith("Bearer "),
        "tools/call went without the token"
      )
    }
    await scenario("OAuth popup from a user gesture", [http401, ...probeBlocked], async () => {
      const authorizations = auth.authorizations.length
      await page.evaluate((url) => harness.onClick(() => harness.authorize("oauth-popup", url, "popup")), secureUrl)
      await page.click("#go")
      value(await page.evaluate(() => clicked) as Outcome<string>, "authorize")
      expect(auth.authorizations.length === authorizations + 1, "the authorization server saw no authorization request")
      expect(auth.grants.includes("authorization_code"), "no code was exchanged")
      from = reqs.length
      const text = value(await page.evaluate((url) => harness.callProtected(url, "oauth-popup"), secureUrl), "call")
      expect(text === "read ok", `read answered ${text}`)
      usedStoredToken(from, authorizations + 1)
    })
    await scenario("OAuth popup without a user gesture is reported as blocked", [], async () => {
      const authorizations = auth.authorizations.length
      // started by the page on load: page.evaluate would lend it a user gesture
      const logged = page.waitForEvent("console", { predicate: (m) => m.text().startsWith("autorun ") })
      await page.goto(`${pages.origin}/?autorun=authorize&store=oauth-blocked&server=${encodeURIComponent(secureUrl)}`)
      const outcome = JSON.parse((await logged).text().slice("autorun ".length)) as Outcome<string>
      expect(
        !outcome.ok && outcome.error.tag === "OAuthError" && /popup was blocked/.test(outcome.error.message),
        `outcome: ${JSON.stringify(outcome)}`
      )
      expect(auth.authorizations.length === authorizations, "the authorization server saw a request")
    })
    await scenario(
      "OAuth popup closed by the user with closedPopup \"fail\": PopupClosed within seconds, no token request",
      [http401, ...probeBlocked],
      async () => {
        const tokenRequests = auth.grants.length + auth.grantErrors.length
        // the sign-in page stays open (the user has not signed in) until the test closes its window
        const hold = (url: URL) => url.origin === auth.issuer && url.pathname === "/auth"
        await context!.route(
          hold,
          (route) =>
            route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>Sign in</title>" })
        )
        try {
          await page.evaluate(
            (url) => harness.onClick(() => harness.authorize("oauth-closed", url, "popup", "fail")),
            secureUrl
          )
          const opened = context!.waitForEvent("page")
          await page.click("#go")
          const popup = await opened
          await popup.waitForLoadState()
          await popup.close()
          const closedAt = Date.now()
          const outcome = await page.evaluate(() => clicked) as Outcome<string>
          const endedIn = Date.now() - closedAt
          expect(
            !outcome.ok && outcome.error.tag === "OAuthError" && outcome.error.interaction === "PopupClosed",
            `outcome: ${JSON.stringify(outcome)}`
          )
          expect(endedIn < 5_000, `the sign-in ended ${endedIn} ms after its window closed`)
          expect(auth.grants.length + auth.grantErrors.length === tokenRequests, "the token endpoint was called")
          console.log(`        (PopupClosed ${endedIn} ms after the window closed)`)
        } finally {
          await context!.unroute(hold)
        }
      }
    )
    await scenario("OAuth flow started by a 401", [http401, ...probeBlocked], async () => {
      from = reqs.length
      await page.evaluate((url) => harness.onClick(() => harness.callProtected(url, "oauth-401")), secureUrl)
      await page.click("#go")
      const text = value(await page.evaluate(() => clicked) as Outcome<string>, "call")
      expect(text === "read ok", `read answered ${text}`)
      const secure = since(reqs, from).filter((r) => r.path === "/secure/mcp" && r.method === "POST")
      expect(secure[0] !== undefined && secure[0].headers.authorization === undefined, "the first POST carried a token")
      expect(secure.some((r) => String(r.headers.authorization).startsWith("Bearer ")), "no POST carried the token")
      const prm = since(reqs, from).some((r) => r.path === "/.well-known/oauth-protected-resource/secure/mcp")
      expect(prm, "the protected-resource metadata was not fetched")
    })
    await scenario(
      "OAuth full-page redirect, callback removed from the address bar",
      [http401, ...probeBlocked],
      async () => {
        await open()
        const authorizations = auth.authorizations.length
        const codeGrants = auth.grants.filter((g) => g === "authorization_code").length
        await page.evaluate(
          (url) => harness.onClick(() => harness.authorize("oauth-redirect", url, "redirect")),
          secureUrl
        )
        await Promise.all([page.waitForURL(`${pages.origin}/redirect?**`), page.click("#go")])
        const landed = new URL(page.url())
        expect(
          landed.searchParams.has("code") && landed.searchParams.has("state"),
          `landed on ${landed.pathname}${landed.search}`
        )
        await page.waitForFunction(() => (globalThis as { harness?: unknown }).harness !== undefined)
        const href = value(
          await page.evaluate((url) => harness.completeRedirect("oauth-redirect", url), secureUrl),
          "complete"
        )
        const after = new URL(href)
        for (const p of ["code", "state", "iss"]) {
          expect(!after.searchParams.has(p), `the address bar still has ${p}: ${after.search}`)
        }
        expect(new URL(page.url()).search === after.search, "the page URL differs from location")
        expect(
          auth.grants.filter((g) => g === "authorization_code").length === codeGrants + 1,
          "no code was exchanged"
        )
        from = reqs.length
        const text = value(
          await page.evaluate((url) => harness.callProtected(url, "oauth-redirect"), secureUrl),
          "call"
        )
        expect(text === "read ok", `read answered ${text}`)
        usedStoredToken(from, authorizations + 1)
      }
    )
    await scenario("OAuth discovery behind a redirect: a typed error, never a guessed server", [
      http401,
      ...probeBlocked
    ], async () => {
      await open()
      from = reqs.length
      const registrations = auth.registrations()
      const outcome = await page.evaluate(
        (url) => harness.callProtected(url, "oauth-moved"),
        `${mcp!.origin}/moved/mcp`
      )
      expect(!outcome.ok && /redirect/.test(outcome.error.message), `outcome: ${JSON.stringify(outcome)}`)
      const guessed = since(reqs, from).filter((r) =>
        r.path === "/register" || r.path.startsWith("/.well-known/oauth-authorization-server") ||
        r.path.startsWith("/.well-known/openid-configuration")
      )
      expect(
        guessed.length === 0,
        `the MCP server was taken for the authorization server: ${guessed.map((r) => r.path).join(", ")}`
      )
      expect(auth.registrations() === registrations, "a client was registered")
    })
  } finally {
    await context?.close().catch(() => undefined)
    await mcp.close()
    await auth.close()
    await pages.close()
    await rm(userDataDir, { recursive: true, force: true })
  }
  const failed = results.filter((r) => r.error !== undefined).length
  console.log(
    `bundle (minimal HTTP client, minified): ${size.totalGzipKb.toFixed(1)} KB gzip total, ` +
      `${size.ownGzipKb.toFixed(1)} KB gzip own code (effect external), up front; ` +
      `${size.onDemand.totalGzipKb.toFixed(1)} KB gzip on demand (the JSON Schema validator)`
  )
  console.log(`(${((Date.now() - startedAt) / 1000).toFixed(1)} s)`)
  await report(results.length - failed, failed)
}

/** The closing line, and the same counts for `.ci/run`'s total. */
const report = async (passed: number, failed: number) => {
  await mkdir(".cache", { recursive: true })
  await writeFile(".cache/browser-report.json", JSON.stringify({ passed, failed }))
  console.log(`browser: ${passed} passed, ${failed} failed`)
  process.exitCode = failed === 0 ? 0 : 1
}

main().catch(async (error) => {
  console.error(error)
  await report(0, 1)
})
