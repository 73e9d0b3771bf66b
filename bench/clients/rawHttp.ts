/**
 * The HTTP floor: a hand-written Streamable HTTP loop on undici's `Agent`
 * (the dispatcher under our `NodeHttpClient.layerUndici`), with no
 * validation, no timeouts, no cancellation and no GET stream. It POSTs
 * `initialize`, keeps the `Mcp-Session-Id`, sends `notifications/initialized`,
 * then POSTs each call with the session and protocol-version headers and
 * reads the answer from a JSON body or from the `data:` lines of the SSE
 * stream (the first event with the request's id).
 */
import { Agent } from "@effect/platform-node/Undici"
import { checkEcho, echoCall, elapsedSince, type Subject } from "../subject.js"

const protocolVersion = "2025-11-25"

interface Answer {
  readonly id?: number
  readonly result?: unknown
  readonly error?: { readonly message: string }
}

/** The answer with `id` in an SSE body so far (complete events only), if any. */
const fromEvents = (text: string, id: number): Answer | undefined => {
  for (const event of text.split("\n\n").slice(0, -1)) {
    const data = event.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart())
    if (data.length === 0) continue
    const message = JSON.parse(data.join("\n")) as Answer
    if (message.id === id) return message
  }
  return undefined
}

export const startHttp = async (url: string): Promise<Subject> => {
  const agent = new Agent()
  const target = new URL(url)
  let sessionId: string | undefined
  let nextId = 1

  const post = async (message: Record<string, unknown>): Promise<Answer | undefined> => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream"
    }
    if (sessionId !== undefined) {
      headers["mcp-session-id"] = sessionId
      headers["mcp-protocol-version"] = protocolVersion
    }
    const response = await agent.request({
      origin: target.origin,
      path: target.pathname,
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", ...message })
    })
    const session = response.headers["mcp-session-id"]
    if (typeof session === "string") sessionId = session
    if (response.statusCode >= 300) throw new Error(`HTTP ${response.statusCode}: ${await response.body.text()}`)
    const id = message.id as number | undefined
    if (id === undefined) {
      await response.body.dump()
      return undefined
    }
    if (String(response.headers["content-type"]).includes("application/json")) {
      return (await response.body.json()) as Answer
    }
    // SSE: answered as soon as the event is complete; the stream is still read to its end (keep-alive)
    const body = response.body
    body.setEncoding("utf8")
    return new Promise<Answer>((resolve, reject) => {
      let text = ""
      let answered = false
      body.on("data", (chunk: string) => {
        if (answered) return
        text += chunk
        const answer = fromEvents(text, id)
        if (answer === undefined) return
        answered = true
        resolve(answer)
      })
      body.on("end", () => {
        if (!answered) reject(new Error("the SSE stream ended without the answer"))
      })
      body.on("error", reject)
    })
  }

  const request = async (method: string, params: unknown): Promise<unknown> => {
    const answer = await post({ id: nextId++, method, params })
    if (answer?.error !== undefined) throw new Error(answer.error.message)
    return answer?.result
  }

  await request("initialize", {
    protocolVersion,
    capabilities: {},
    clientInfo: { name: "bench-raw", version: "1.0.0" }
  })
  await post({ method: "notifications/initialized" })
  checkEcho("raw", await request("tools/call", echoCall))

  return {
    sequential: async (n) => {
      const start = performance.now()
      for (let i = 0; i < n; i++) await request("tools/call", echoCall)
      return elapsedSince(start)
    },
    concurrent: async (n) => {
      const start = performance.now()
      await Promise.all(Array.from({ length: n }, () => request("tools/call", echoCall)))
      return elapsedSince(start)
    },
    close: () => agent.close()
  }
}
