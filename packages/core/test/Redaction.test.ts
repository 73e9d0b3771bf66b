import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as esbuild from "esbuild"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Redaction, TestTracer } from "../src/index.js"

/** An HttpClient answering every request with a redirect whose Location carries an authorization code. */
const redirecting = HttpClient.make((request) =>
  Effect.succeed(HttpClientResponse.fromWeb(
    request,
    new Response(null, {
      status: 302,
      headers: { location: "http://127.0.0.1:8976/callback?code=code-secret-1&state=s" }
    })
  ))
)

describe("Redaction", () => {
  it("a URL keeps scheme, host, port, path and parameter names; values, user info and fragment are replaced", () => {
    expect(Redaction.url("https://example.com:8443/mcp?api_key=sk-123&region=eu")).toBe(
      "https://example.com:8443/mcp?api_key=<redacted>&region=<redacted>"
    )
    expect(Redaction.url(new URL("https://user:pw@example.com/a#access_token=t"))).toBe(
      "https://<redacted>@example.com/a#<redacted>"
    )
    expect(Redaction.url("https://example.com/mcp?sk-bare-token")).toBe("https://example.com/mcp?<redacted>")
    expect(Redaction.url("https://example.com/mcp")).toBe("https://example.com/mcp")
    expect(Redaction.query("a=1&b")).toBe("a=<redacted>&<redacted>")
  })

  it("text redacts every URL inside it and leaves the rest", () => {
    expect(Redaction.text("GET https://h/mcp?api_key=k1 failed (see http://x/y?t=2)")).toBe(
      "GET https://h/mcp?api_key=<redacted> failed (see http://x/y?t=<redacted>)"
    )
    expect(Redaction.text("no url here")).toBe("no url here")
  })

  it("neutralize leaves server text without escape sequences, control, bidi or invisible characters", () => {
    const hostile = "denied\x1b[31m red\x1b[0m\r\nnext\u202eevil\u200b\x9b2J"
    expect(Redaction.neutralize(hostile)).toBe("denied red\nnextevil2J")
    expect(Redaction.neutralize(hostile, "line")).toBe("denied red nextevil2J")
  })

  it("a masker replaces each secret, longest first, and ignores values too short to be secrets", () => {
    const mask = Redaction.masker(["sk-live-0123", "sk-live-0123-extended", "1", "true"])
    expect(mask("a sk-live-0123-extended b sk-live-0123 c 1 true")).toBe("a <redacted> b <redacted> c 1 true")
    expect(Redaction.masker([])("unchanged")).toBe("unchanged")
    expect(Redaction.masker(["a.b*c+d"])("x a.b*c+d y aXbbc+d")).toBe("x <redacted> y aXbbc+d")
  })

  it.effect("an HttpClient's span carries no query value and no code from a Location header", () => {
    const recorder = TestTracer.make()
    return Effect.gen(function*() {
      yield* Redaction.httpClient(redirecting).execute(
        HttpClientRequest.get("https://example.com/mcp?api_key=api-secret-1")
      ).pipe(Effect.scoped)
      const [span] = recorder.named("http.client GET")
      expect(span.attributes.get("url.full")).toBe("https://example.com/mcp?api_key=<redacted>")
      expect(span.attributes.get("url.query")).toBe("api_key=<redacted>")
      expect(span.attributes.get("http.response.header.location")).toBe(
        "http://127.0.0.1:8976/callback?code=<redacted>&state=<redacted>"
      )
      expect(span.attributes.get("url.path")).toBe("/mcp")
      expect(span.status._tag).toBe("Ended")
      const everything = JSON.stringify(recorder.spans.map((s) => [...s.attributes]))
      expect(everything).not.toContain("api-secret-1")
      expect(everything).not.toContain("code-secret-1")
    }).pipe(Effect.withTracer(recorder.tracer))
  })

  it.effect("without the wrapper the platform's span shows the key (what Redaction.httpClient prevents)", () => {
    const recorder = TestTracer.make()
    return Effect.gen(function*() {
      yield* redirecting.execute(HttpClientRequest.get("https://example.com/mcp?api_key=api-secret-1")).pipe(
        Effect.scoped
      )
      expect(String(recorder.named("http.client GET")[0].attributes.get("url.full"))).toContain("api-secret-1")
    }).pipe(Effect.withTracer(recorder.tracer))
  })

  it.effect("a request that fails ends its span with the error's URL redacted (the platform's message quotes it)", () => {
    const recorder = TestTracer.make()
    const refusing = HttpClient.make((request) =>
      Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause: new Error("refused") }))
    )
    return Effect.gen(function*() {
      const error = yield* Effect.flip(
        Redaction.httpClient(refusing).execute(HttpClientRequest.get("https://example.com/mcp?api_key=api-secret-2"))
      )
      expect(error.message).toContain("api-secret-2") // the platform's own error, as the caller gets it
      const [span] = recorder.named("http.client GET")
      expect(span.status._tag === "Ended" && Exit.isFailure(span.status.exit)).toBe(true)
      const ended = span.status._tag === "Ended"
        ? Cause.pretty(span.status.exit.pipe(Exit.causeOption, Option.getOrThrow))
        : ""
      expect(ended).toContain("api_key=<redacted>")
      expect(ended).not.toContain("api-secret-2")
      expect(ended).toContain("RequestError")
    }).pipe(Effect.withTracer(recorder.tracer))
  })

  it("a cause's errors and defects are redacted, names kept", () => {
    const failure = Cause.sequential(
      Cause.fail(new TypeError("GET https://h/x?token=t1 failed", { cause: new Error("see https://h/y?k=t2") })),
      Cause.die("defect at https://h/z?k=t3")
    )
    const pretty = Cause.pretty(Redaction.cause(failure))
    for (const secret of ["t1", "t2", "t3"]) expect(pretty).not.toMatch(new RegExp(`=${secret}\\b`))
    expect(pretty).toContain("TypeError: GET https://h/x?token=<redacted> failed")
  })

  it("a program that only masks text (a stdio server's stderr) does not load the platform's HttpClient", async () => {
    // what Node loads is what the bundle imports: effect and @effect/* stay imports, as in an app
    const result = await esbuild.build({
      stdin: {
        contents: "import { masker } from \"@mcp-effect/core/Redaction\"\nconsole.log(masker([\"secret-1\"])(\"a\"))",
        resolveDir: path.dirname(fileURLToPath(import.meta.url))
      },
      bundle: true,
      format: "esm",
      platform: "node",
      conditions: ["@mcp-effect/source"],
      external: ["effect", "effect/*", "@effect/*"],
      metafile: true,
      write: false,
      logLevel: "silent"
    })
    const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((i) => i.path))
    expect(imports).toContain("effect/Tracer")
    expect(imports.filter((i) => i.startsWith("@effect/platform"))).toEqual([])
  })

  it("a tracer is wrapped once; the built-in tracer is left as it is", () => {
    const recorder = TestTracer.make()
    const wrapped = Redaction.tracer(recorder.tracer)
    expect(Redaction.tracer(recorder.tracer)).toBe(wrapped)
    expect(Redaction.tracer(wrapped)).toBe(wrapped)
  })
})
