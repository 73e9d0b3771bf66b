/**
 * The app under test, bundled for the browser from the packages' sources.
 * On the popup callback page (`/callback`) it hands the callback to the
 * opener and closes; everywhere else it exposes `window.harness`, whose
 * functions the runner calls with `page.evaluate` (or from a click, for
 * what needs a user gesture). Each returns plain JSON: what the page saw.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Elicitation, McpClient, type McpError } from "@mcp-effect/core"
import { BrowserAuthorizer, BrowserTokenStore, OAuthClient, UrlPolicy } from "@mcp-effect/oauth"
import { HttpTransport } from "@mcp-effect/transport-http"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

export type Outcome<A> =
  | { readonly ok: true; readonly value: A }
  | {
    readonly ok: false
    readonly error: {
      readonly tag: string
      readonly reason?: string
      readonly interaction?: string
      readonly message: string
    }
  }

const describe = (e: unknown) => {
  const error = e as { _tag?: string; reason?: string; interaction?: string; message?: string }
  return {
    tag: String(error?._tag ?? "unknown"),
    ...(typeof error?.reason === "string" ? { reason: error.reason } : {}),
    ...(typeof error?.interaction === "string" ? { interaction: error.interaction } : {}),
    message: String(error?.message ?? e)
  }
}

const run = <A, E>(effect: Effect.Effect<A, E>, within: Duration.DurationInput = "15 seconds"): Promise<Outcome<A>> =>
  Effect.runPromise(
    effect.pipe(
      Effect.timeoutFail({
        duration: within,
        onTimeout: () => ({ _tag: "PageTimeout", message: `no outcome in ${Duration.format(within)}` })
      }),
      Effect.match({
        onFailure: (error): Outcome<A> => ({ ok: false, error: describe(error) }),
        onSuccess: (value): Outcome<A> => ({ ok: true, value })
      }),
      Effect.catchAllDefect((defect) =>
        Effect.succeed<Outcome<A>>({ ok: false, error: { tag: "Defect", message: String(defect) } })
      )
    )
  )

const clientInfo = { name: "browser-suite", version: "1.0.0" }

const oauthOptions = {
  client: { clientId: "browser-app" },
  urlPolicy: UrlPolicy.loopbackDevelopment,
  scopes: ["mcp:read"]
} satisfies OAuthClient.AuthorizationCodeOptions

const oauthLayer = (store: string, mode: "popup" | "redirect") =>
  OAuthClient.layerAuthorizationCode({ ...oauthOptions }).pipe(
    Layer.provide(BrowserAuthorizer.layer({ redirectUri: `${location.origin}/${mode}`, mode })),
    Layer.provide(BrowserTokenStore.layer({ name: store })),
    Layer.provide(FetchHttpClient.layer),
    Layer.orDie
  )

const clientLayer = (
  options: HttpTransport.Options,
  auth?: { readonly store: string; readonly mode: "popup" | "redirect" }
) =>
  McpClient.layer({ clientInfo, prefetch: false }).pipe(
    Layer.provide(
      auth === undefined
        ? HttpTransport.layer(options)
        : HttpTransport.layer(options).pipe(Layer.provide(oauthLayer(auth.store, auth.mode)))
    ),
    Layer.provide(FetchHttpClient.layer)
  )

const withClient = <A, E>(
  layer: Layer.Layer<McpClient.McpClient, McpError.TransportError>,
  use: (client: McpClient.Service) => Effect.Effect<A, E>
) => Effect.scoped(Effect.flatMap(Layer.build(layer), (context) => use(Context.get(context, McpClient.McpClient))))

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.map((c) => (c as { text?: string }).text ?? "").join("")

/** Connects, lists, calls; then a slow call interrupted after two progress notices; then a ping. */
const session = (url: string, tracePropagation?: boolean) =>
  run(
    withClient(clientLayer({ url, ...(tracePropagation === undefined ? {} : { tracePropagation }) }), (client) =>
      Effect.gen(function*() {
        const initialized = yield* client.initialized
        const tools = (yield* client.listTools).map((t) =>
          t.name
        )
        const echoed = textOf(yield* client.callTool({ name: "echo", arguments: { text: "hello from chromium" } }))
        const progressed = yield* Deferred.make<void>()
        const progress: Array<number> = []
        const slow = yield* client.callTool({ name: "slow", arguments: { tag: "interrupted" } }, {
          onProgress: (p) =>
            Effect.suspend(() => {
              progress.push(p.progress)
              return progress.length >= 2 ? Deferred.succeed(progressed, undefined) : Effect.void
            })
        }).pipe(Effect.fork)
        yield* Deferred.await(progressed)
        yield* Fiber.interrupt(slow)
        yield* client.ping
        return { protocolVersion: initialized.protocolVersion, tools, echoed, progress }
      }))
  )

/** Only initializes: for the refused-headers case. */
const connectOnly = (url: string, tracePropagation?: boolean) =>
  run(
    withClient(clientLayer({ url, ...(tracePropagation === undefined ? {} : { tracePropagation }) }), (client) =>
      Effect.map(client.initialized, (i) => i.protocolVersion))
  )

// --- server-everything ---------------------------------------------------------

/**
 * Against server-everything: `cancels` long operations each interrupted
 * after its first progress notice, then an echo and an elicitation round trip
 * (answered with `{ name }`), in one session. Each step has 10 s: a request
 * that queues behind connections the cancelled calls still hold never ends.
 */
const cancelsThenRoundTrip = (url: string, cancels: number) =>
  run(
    withClient(
      McpClient.layer({ clientInfo, prefetch: false }).pipe(
        Layer.provide(
          Elicitation.layer(() => Effect.succeed({ action: "accept" as const, content: { name: "Chromium" } }))
        ),
        Layer.provide(HttpTransport.layer({ url })),
        Layer.provide(FetchHttpClient.layer)
      ),
      (client) =>
        Effect.gen(function*() {
          const step = <A, E>(what: string, effect: Effect.Effect<A, E>) =>
            Effect.timeoutFail(effect, {
              duration: "10 seconds",
              onTimeout: () => ({ _tag: "StepTimeout", message: `${what}: no answer in 10 s` })
            })
          yield* step("initialize", client.initialized)
          for (let i = 0; i < cancels; i++) {
            const progressed = yield* Deferred.make<void>()
            const call = yield* client.callTool({
              name: "trigger-long-running-operation",
              arguments: { duration: 30, steps: 30 }
            }, {
              onProgress: () => Deferred.succeed(progressed, undefined)
            }).pipe(Effect.fork)
            yield* step(`progress of call ${i + 1}`, Deferred.await(progressed))
            yield* Fiber.interrupt(call)
          }
          const echoed = textOf(
            yield* step("echo", client.callTool({ name: "echo", arguments: { message: "after the cancels" } }))
          )
          const elicited = textOf(
            yield* step("elicitation", client.callTool({ name: "trigger-elicitation-request", arguments: {} }))
          )
          return { echoed, elicited }
        })
    ),
    "120 seconds"
  )

// --- token store -----------------------------------------------------------

const key = (resource: string, issuer: string) => ({ resource, issuer })

const storeSave = (name: string, resource: string, issuer: string, token: string) =>
  run(
    Effect.scoped(Effect.flatMap(BrowserTokenStore.make({ name }), (store) =>
      store.setTokens(key(resource, issuer), { accessToken: Redacted.make(token), tokenType: "Bearer" })))
  )

const storeRead = (name: string, resource: string, issuer: string) =>
  run(
    Effect.scoped(Effect.flatMap(BrowserTokenStore.make({ name }), (store) =>
      Effect.map(
        store.getTokens(key(resource, issuer)),
        Option.match({
          onNone: () => null,
          onSome: (tokens) => Redacted.value(tokens.accessToken)
        })
      )))
  )

/** Holds the store's refresh lock for a token for `ms`: when this tab got it and gave it back (epoch ms). */
const storeHold = (name: string, resource: string, issuer: string, ms: number) =>
  run(
    Effect.scoped(Effect.flatMap(BrowserTokenStore.make({ name }), (store) =>
      store.exclusive === undefined ?
        Effect.fail({ _tag: "NoLock", message: "the store has no refresh lock" }) :
        Effect.scoped(
          store.exclusive(key(resource, issuer)).pipe(
            Effect.map(() => performance.timeOrigin + performance.now()),
            Effect.zipLeft(Effect.sleep(ms)),
            Effect.map((acquired) => ({ acquired, released: performance.timeOrigin + performance.now() }))
          )
        )))
  )

const idb = <A>(name: string, mode: IDBTransactionMode, f: (store: IDBObjectStore) => IDBRequest<A>) =>
  new Promise<A>((resolve, reject) => {
    const open = indexedDB.open(name)
    open.onerror = () => reject(open.error)
    open.onsuccess = () => {
      const db = open.result
      const tx = db.transaction("records", mode)
      const request = f(tx.objectStore("records"))
      tx.oncomplete = () => {
        db.close()
        resolve(request.result)
      }
      tx.onerror = () => reject(tx.error)
    }
  })

/** The raw record keys of an IndexedDB store. */
const storeKeys = (name: string) => idb(name, "readonly", (s) => s.getAllKeys()).then((keys) => keys.map(String))

/** Overwrites one character in the middle of every sealed record. */
const storeTamper = async (name: string) => {
  for (const k of await storeKeys(name)) {
    const value = await idb<string>(name, "readonly", (s) => s.get(k))
    const i = Math.floor(value.length / 2)
    await idb(
      name,
      "readwrite",
      (s) => s.put(value.slice(0, i) + (value[i] === "A" ? "B" : "A") + value.slice(i + 1), k)
    )
  }
}

/** Moves every record to the key an older version used (`kind:` and the plain id). */
const storeToLegacyKey = async (name: string, legacyKey: string) => {
  const [k] = await storeKeys(name)
  const value = await idb<string>(name, "readonly", (s) => s.get(k!))
  await idb(name, "readwrite", (s) => s.delete(k!))
  await idb(name, "readwrite", (s) => s.put(value, legacyKey))
}

/** The store without IndexedDB: localStorage, keys listed. */
const storeWithoutIndexedDb = (name: string, resource: string, issuer: string) => {
  Object.defineProperty(globalThis, "indexedDB", { value: undefined, configurable: true })
  return run(Effect.scoped(Effect.gen(function*() {
    const store = yield* BrowserTokenStore.make({ name })
    yield* store.setTokens(key(resource, issuer), { accessToken: Redacted.make("fallback-token"), tokenType: "Bearer" })
    const read = yield* store.getTokens(key(resource, issuer))
    const keys = Object.keys(localStorage).filter((k) => k.startsWith(`${name}:`))
    return { read: Option.isSome(read) ? Redacted.value(read.value.accessToken) : null, keys }
  })))
}

// --- OAuth -----------------------------------------------------------------

const authorize = (store: string, serverUrl: string, mode: "popup" | "redirect", closedPopup?: "ask" | "fail") =>
  run(Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(
      OAuthClient.layerAuthorizationCode({ ...oauthOptions, serverUrl }).pipe(
        Layer.provide(BrowserAuthorizer.layer({ redirectUri: `${location.origin}/${mode}`, mode, closedPopup })),
        Layer.provide(BrowserTokenStore.layer({ name: store })),
        Layer.provide(FetchHttpClient.layer)
      )
    )
    const client = Context.get(context, OAuthClient.OAuthClient)
    yield* client.authorize
    return "authorized"
  })))

/** Finishes a full-page redirect flow on the callback page, then reports the address bar. */
const completeRedirect = (store: string, serverUrl: string) =>
  run(Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(
      OAuthClient.layerAuthorizationCode({ ...oauthOptions, serverUrl }).pipe(
        Layer.provide(BrowserAuthorizer.layer({ redirectUri: `${location.origin}/redirect`, mode: "redirect" })),
        Layer.provide(BrowserTokenStore.layer({ name: store })),
        Layer.provide(FetchHttpClient.layer)
      )
    )
    const client = Context.get(context, OAuthClient.OAuthClient)
    yield* client.completeAuthorization(location.href)
    return location.href
  })))

/** Calls `read` on a protected endpoint: a 401 starts the flow when the store has no token. */
const callProtected = (url: string, store: string) =>
  run(
    withClient(clientLayer({ url }, { store, mode: "popup" }), (client) =>
      Effect.map(client.callTool({ name: "read", arguments: {} }), textOf))
  )

/** Runs `action` from the next click on the button (a user gesture); the outcome lands in `clicked`. */
const onClick = (action: () => Promise<unknown>) => {
  const button = document.getElementById("go")!
  const result = new Promise<unknown>((resolve) => {
    button.onclick = () => {
      button.onclick = null
      action().then(resolve, (e) => resolve({ ok: false, error: describe(e) }))
    }
  })
  ;(globalThis as { clicked?: Promise<unknown> }).clicked = result
}

const harness = {
  session,
  cancelsThenRoundTrip,
  connectOnly,
  storeSave,
  storeRead,
  storeHold,
  storeKeys,
  storeTamper,
  storeToLegacyKey,
  storeWithoutIndexedDb,
  authorize,
  completeRedirect,
  callProtected,
  onClick
}

export type Harness = typeof harness

const query = new URLSearchParams(location.search)
if (location.pathname === "/popup") {
  Effect.runSync(BrowserAuthorizer.completeCallback())
} else {
  ;(globalThis as { harness?: Harness }).harness = harness
  // an app that starts authorizing on load, without a user gesture
  if (query.get("autorun") === "authorize") {
    void authorize(query.get("store")!, query.get("server")!, "popup").then((outcome) =>
      console.log(`autorun ${JSON.stringify(outcome)}`)
    )
  }
}
