/**
 * The console: servers, their tools, tool runs with approval, the call
 * history and the tools in a model provider's format.
 */
import type { ApprovalPolicy, McpSchema } from "@mcp-effect/core"
import type { ServerConfig } from "@mcp-effect/hub"
import { ServerRegistry, ToolFormat } from "@mcp-effect/hub"
import type * as TokenStore from "@mcp-effect/oauth/TokenStore"
import { Approvals, Elicitations, History, Registry, RuntimeProvider, ToolCall } from "@mcp-effect/react"
import * as Effect from "effect/Effect"
import * as React from "react"
import { AppsPanel } from "./apps.js"
import { forgetTokens, hubLayer, modes, savedServers, saveServer, storedMode, storeMode, testLayer } from "./hub.js"
import { SchemaForm } from "./schemaForm.js"
import { SignInNotice, useSigningIn } from "./signIn.js"
import { statusLabel } from "./status.js"

const useRegistryAction = () => {
  const runtime = RuntimeProvider.useRuntime()
  const [error, setError] = React.useState<string | undefined>(undefined)
  const run = React.useCallback(
    (f: (registry: ServerRegistry.Service) => Effect.Effect<void, unknown, TokenStore.TokenStore>) => {
      if (runtime === null) return
      setError(undefined)
      runtime.runPromise(Effect.flatMap(ServerRegistry.ServerRegistry, f)).catch((e: unknown) =>
        setError(e instanceof Error ? e.message : String(e))
      )
    },
    [runtime]
  )
  return { run, error }
}

const rawText = (error: unknown): string =>
  error === undefined ? "" : typeof error === "object" && error !== null && "message" in error ?
    `${(error as { _tag?: string })._tag ?? "Error"}: ${String((error as { message: unknown }).message)}` :
    String(error)

/**
 * What a failure means for the user: the OAuth failures a person can act on
 * are said in words (a closed sign-in window, a client id the authorization
 * server does not know, no dynamic registration), the rest as the library
 * reports it.
 */
const errorText = (error: unknown, hints?: { readonly oauthWithoutClientId?: boolean | undefined }): string => {
  const raw = rawText(error)
  // without a client id the only OAuth endpoint fetched past discovery is the registration endpoint
  const registrationFailed = /OAuth Registration/.test(raw) ||
    (hints?.oauthWithoutClientId === true && /OAuth Http/.test(raw) && !/well-known/.test(raw))
  if (registrationFailed) {
    return "This server needs a client id: its authorization server offers no dynamic client registration to this " +
      `page (${
        /OAuth Registration/.test(raw) ? "none is advertised" : "the registration endpoint refuses this origin"
      }). ` +
      "Register the console with the authorization server and enter its client id."
  }
  if (/invalid_client/.test(raw)) {
    return "The authorization server refused this client id (invalid_client): it does not know it, or expects a secret a " +
      "browser page cannot keep. Check the client id in the server's settings (a public client, no secret)."
  }
  if (/OAuth Interaction/.test(raw)) {
    if (/blocked/i.test(raw)) {
      return "The sign-in window was blocked by the browser. Allow popups for this page, then Reconnect."
    }
    if (/closed/i.test(raw)) {
      return "The sign-in window was closed before the sign-in finished. Reconnect to sign in again."
    }
    if (/cancelled/i.test(raw)) return "The sign-in was cancelled. Reconnect to sign in again."
    if (/no callback within/i.test(raw)) {
      return "The sign-in did not finish in time (the sign-in window sent no answer). Reconnect to sign in again."
    }
  }
  if (/access_denied/.test(raw)) return "The authorization was refused at the authorization server (access_denied)."
  return raw
}

// --- servers ---------------------------------------------------------------

/** The status; while the connection waits for a sign-in, "Signing in" (the sign-in notice says where). */
const StatusBadge = (
  { signingIn = false, status }: { readonly status: ServerRegistry.ServerStatus; readonly signingIn?: boolean }
) => {
  const waiting = signingIn && (status._tag === "Connecting" || status._tag === "Reconnecting")
  return (
    <span className={`status status-${waiting ? "Connecting" : status._tag}`} data-testid={`status-${status.name}`}>
      {waiting ? "Signing in" : status._tag}
    </span>
  )
}

/** Removes a server with what this browser keeps for it: its tokens and the console's note of its URL. */
const removeServer = (registry: ServerRegistry.Service, name: string) =>
  Effect.gen(function*() {
    const saved = savedServers()[name]
    yield* registry.remove(name)
    saveServer(name, undefined)
    if (saved?.oauth === true) {
      yield* forgetTokens(saved.url, saved.clientId).pipe(
        Effect.catchAll((error) => Effect.logWarning("could not remove the server's tokens", error.message))
      )
    }
  })

const ServerRow = ({ status }: { readonly status: ServerRegistry.ServerStatus }) => {
  const { error, run } = useRegistryAction()
  const signingIn = useSigningIn(savedServers()[status.name]?.url ?? "")
  return (
    <tr data-testid={`server-${status.name}`}>
      <td>{status.name}{status.trusted && <span className="badge trusted">trusted</span>}</td>
      <td>
        {status.transport === "sse"
          ? "SSE (legacy)"
          : status.transport === "http"
          ? "Streamable HTTP"
          : status.transport}
      </td>
      <td>
        <StatusBadge status={status} signingIn={signingIn} />
      </td>
      <td>
        <code data-testid={`session-${status.name}`}>{status.sessionId ?? "-"}</code>
      </td>
      <td>{status.toolCount}</td>
      <td className="error">
        {errorText(status.lastError, { oauthWithoutClientId: savedServers()[status.name]?.oauthWithoutClientId })}
        {error}
      </td>
      <td className="actions">
        <button onClick={() => run((r) => r.reconnect(status.name))}>Reconnect</button>
        <button onClick={() => run((r) => removeServer(r, status.name))}>Remove</button>
      </td>
    </tr>
  )
}

/** The result of a connection test, inside the test's own runtime. */
const TestResult = (
  { name, oauthWithoutClientId }: { readonly name: string; readonly oauthWithoutClientId: boolean }
) => {
  const status = Registry.useServer(name)
  const tools = Registry.useHubTools()
  // the test's runtime has this one server: any sign-in in it is this server's
  const signingIn = useSigningIn()
  if (status === undefined) return <p className="muted" data-testid="test-result">Starting the test…</p>
  return (
    <div className="test-result" data-testid="test-result">
      <p>
        <StatusBadge status={status} signingIn={signingIn} />{" "}
        {status.serverInfo !== undefined && `${status.serverInfo.name} ${status.serverInfo.version}`}
        {status.protocolVersion !== undefined && <span className="muted">· protocol {status.protocolVersion}</span>}
      </p>
      <p>
        Mcp-Session-Id: <code data-testid="test-session">{status.sessionId ?? "-"}</code>
      </p>
      <SignInNotice />
      {status.lastError !== undefined && (
        <p className="error">{errorText(status.lastError, { oauthWithoutClientId })}</p>
      )}
      <ul className="tool-chips">
        {tools.map((t) => (
          <li key={t.name}>
            <ToolIcon tool={t.tool} /> {t.tool.title ?? t.tool.name}
          </li>
        ))}
      </ul>
      <p className="hint">A test saves nothing: Save adds the server, Cancel leaves the list as it was.</p>
    </div>
  )
}

const AddServer = ({ onDone }: { readonly onDone: () => void }) => {
  const [name, setName] = React.useState("")
  const [url, setUrl] = React.useState("")
  const [transport, setTransport] = React.useState<"Http" | "Sse">("Http")
  const [trusted, setTrusted] = React.useState(false)
  const [auth, setAuth] = React.useState<"none" | "oauth2">("none")
  const [clientId, setClientId] = React.useState("")
  const [scopes, setScopes] = React.useState("")
  // each test runs in a runtime of its own (a new object, a new test); closing it closes its session
  const [test, setTest] = React.useState<
    { readonly config: ServerConfig.ServerConfig; readonly layer: ReturnType<typeof testLayer> } | undefined
  >(undefined)
  const runtime = RuntimeProvider.useRuntime()
  const [error, setError] = React.useState<string | undefined>(undefined)

  const config = (): ServerConfig.ServerConfig => ({
    name: name.trim(),
    transport: { _tag: transport, url: url.trim(), headers: {} },
    disabled: false,
    trusted,
    ...(auth === "oauth2" ?
      {
        auth: {
          type: "oauth2" as const,
          ...(clientId.trim() === "" ? {} : { clientId: clientId.trim() }),
          ...(scopes.trim() === "" ? {} : { scopes: scopes.trim().split(/\s+/) })
        }
      } :
      {})
  })
  const startTest = () => {
    const next = config()
    setError(undefined)
    setTest({ config: next, layer: testLayer(next) })
  }
  const save = () => {
    if (runtime === null) return
    const next = config()
    setError(undefined)
    runtime.runPromise(Effect.flatMap(ServerRegistry.ServerRegistry, (r) => r.add(next))).then(
      () => {
        saveServer(next.name, {
          url: next.transport._tag === "Stdio" ? "" : next.transport.url,
          oauth: auth === "oauth2",
          ...(auth === "oauth2" && clientId.trim() !== "" ? { clientId: clientId.trim() } : {}),
          oauthWithoutClientId: auth === "oauth2" && clientId.trim() === ""
        })
        setTest(undefined)
        onDone()
      },
      (e: unknown) => setError(errorText(e))
    )
  }
  // the test's runtime goes with the form: its session is closed, nothing else changes
  const cancel = () => {
    setTest(undefined)
    onDone()
  }
  const filled = name.trim() !== "" && url.trim() !== ""
  return (
    <section className="card add-server" aria-label="Add server">
      <h3>Add server</h3>
      <label>
        Name <input name="server-name" value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        URL{" "}
        <input
          name="server-url"
          value={url}
          placeholder="http://127.0.0.1:3000/mcp"
          onChange={(e) => setUrl(e.target.value)}
        />
      </label>
      <label>
        Transport
        <select name="transport" value={transport} onChange={(e) => setTransport(e.target.value as "Http" | "Sse")}>
          <option value="Http">Streamable HTTP</option>
          <option value="Sse">HTTP+SSE (legacy)</option>
        </select>
      </label>
      <label className="inline">
        <input type="checkbox" name="trusted" checked={trusted} onChange={(e) => setTrusted(e.target.checked)} />{" "}
        Trusted server
      </label>
      <label>
        Authentication
        <select name="auth" value={auth} onChange={(e) => setAuth(e.target.value as "none" | "oauth2")}>
          <option value="none">None</option>
          <option value="oauth2">OAuth 2.1 (authorization code + PKCE)</option>
        </select>
      </label>
      {auth === "oauth2" && (
        <fieldset>
          <legend>OAuth 2.1</legend>
          <label>
            Client ID <input name="client-id" value={clientId} onChange={(e) => setClientId(e.target.value)} />
          </label>
          <label>
            Scopes{" "}
            <input name="scopes" value={scopes} placeholder="mcp:read" onChange={(e) => setScopes(e.target.value)} />
          </label>
          <p className="hint">
            The authorization and token endpoints are discovered from the server (protected-resource metadata, then the
            authorization server's metadata). Leave the client ID empty only if the authorization server offers dynamic
            client registration. Tokens are stored encrypted in this browser.
          </p>
        </fieldset>
      )}
      <div className="actions">
        <button disabled={!filled} onClick={startTest}>
          {auth === "oauth2" ? "Authorize" : "Test Connection"}
        </button>
        <button disabled={!filled} onClick={save}>Save</button>
        <button onClick={cancel}>Cancel</button>
      </div>
      {error !== undefined && <p className="error" role="alert">{error}</p>}
      {test !== undefined && (
        <RuntimeProvider.Provider layer={test.layer}>
          <TestResult
            name={test.config.name}
            oauthWithoutClientId={test.config.auth?.type === "oauth2" && test.config.auth.clientId === undefined}
          />
        </RuntimeProvider.Provider>
      )}
    </section>
  )
}

const Servers = () => {
  const servers = Registry.useServers()
  const [adding, setAdding] = React.useState(false)
  return (
    <section className="card">
      <header className="row">
        <h2>Servers</h2>
        {!adding && <button onClick={() => setAdding(true)}>Add Server</button>}
      </header>
      {adding && <AddServer onDone={() => setAdding(false)} />}
      <SignInNotice />
      <table className="servers">
        <thead>
          <tr>
            <th>Name</th>
            <th>Transport</th>
            <th>Status</th>
            <th>Mcp-Session-Id</th>
            <th>Tools</th>
            <th>Error</th>
            <th />
          </tr>
        </thead>
        <tbody>{servers.map((s) => <ServerRow key={s.name} status={s} />)}</tbody>
      </table>
      {servers.length === 0 && <p className="muted">No servers yet.</p>}
    </section>
  )
}

// --- tools -----------------------------------------------------------------

const ToolIcon = ({ tool }: { readonly tool: McpSchema.Tool }) => {
  const icon = tool.icons?.find((i) => /^(https?:|data:image\/)/.test(i.src))
  return icon === undefined ?
    <span className="icon placeholder" aria-hidden="true">⚙</span> :
    <img className="icon" src={icon.src} alt="" width={20} height={20} />
}

const Badges = ({ tool }: { readonly tool: McpSchema.Tool }) => {
  const a = tool.annotations
  return (
    <span className="badges">
      {a?.destructiveHint === true && <span className="badge destructive">destructive</span>}
      {a?.openWorldHint === true && <span className="badge open-world">open-world</span>}
      {a?.readOnlyHint === true && <span className="badge read-only">read-only</span>}
      {a?.idempotentHint === true && <span className="badge">idempotent</span>}
    </span>
  )
}

/** A result's content: text as text, images as images, anything else by its type. */
const ResultContent = ({ result }: { readonly result: McpSchema.CallToolResult }) => (
  <div className={result.isError === true ? "result-blocks error" : "result-blocks"} data-testid="call-content">
    {result.content.map((block, i) =>
      block.type === "text" ?
        (
          <pre
            key={i}
            className={result.isError === true ? "error" : "result"}
            data-testid="call-result"
          >{block.text}</pre>
        ) :
        block.type === "image" && /^image\/(png|jpeg|gif|webp)$/.test(block.mimeType) ?
        (
          <img
            key={i}
            className="result-image"
            data-testid="call-image"
            alt="image from the tool"
            src={`data:${block.mimeType};base64,${block.data}`}
          />
        ) :
        <pre key={i} className="muted">[{block.type}]</pre>
    )}
  </div>
)

const ToolRunner = ({ hubTool }: { readonly hubTool: ServerRegistry.HubTool }) => {
  const client = Registry.useServerClient(hubTool.server)
  const call = ToolCall.useToolCall(hubTool.tool.name, { client })
  const progress = call.progress
  const percent = progress?.total !== undefined && progress.total > 0
    ? Math.round((progress.progress / progress.total) * 100)
    : undefined
  const active = call.status === "Running" || call.status === "AwaitingApproval"
  return (
    <div className="runner" data-testid={`runner-${hubTool.name}`}>
      <SchemaForm
        schema={hubTool.tool.inputSchema as { readonly [k: string]: unknown }}
        idPrefix={hubTool.name}
        submitLabel={client === undefined ? "Waiting for the server…" : "Run"}
        onSubmit={(values) => call.run(values)}
      />
      {call.status !== "Idle" && (
        <div className="call">
          <p>
            Status:{" "}
            <strong data-testid="call-status" className={`status status-${call.status}`}>
              {statusLabel(call.status)}
            </strong>
            {call.task !== undefined && (
              <>
                · task <code>{call.task.taskId}</code> <strong data-testid="task-status">{call.task.status}</strong>
                {call.task.statusMessage !== undefined && <span className="muted">· {call.task.statusMessage}</span>}
              </>
            )}
          </p>
          {progress !== undefined && (
            <div className="progress">
              <progress max={progress.total ?? undefined} value={progress.progress} data-testid="progress" />
              <span>
                {percent !== undefined ? `${percent}%` : progress.progress}
                {progress.message !== undefined && ` · ${progress.message}`}
              </span>
            </div>
          )}
          {active && <button onClick={call.cancel}>{call.task !== undefined ? "Cancel task" : "Cancel"}</button>}
          {call.result !== undefined && <ResultContent result={call.result} />}
          {call.error !== undefined && (
            <p className="error" role="alert" data-testid="call-error">{errorText(call.error)}</p>
          )}
        </div>
      )}
    </div>
  )
}

const Tools = () => {
  const tools = Registry.useHubTools()
  // several runners can be open (and running) at once
  const [open, setOpen] = React.useState<ReadonlySet<string>>(new Set())
  const toggle = (name: string) =>
    setOpen((previous) => {
      const next = new Set(previous)
      if (!next.delete(name)) next.add(name)
      return next
    })
  return (
    <section className="card">
      <h2>Tools</h2>
      {tools.length === 0 && <p className="muted">Connect a server to see its tools.</p>}
      <ul className="tools">
        {tools.map((t) => (
          <li key={t.name} data-testid={`tool-${t.name}`}>
            <div className="row">
              <ToolIcon tool={t.tool} />
              <strong>{t.tool.title ?? t.tool.name}</strong>
              <code className="muted">{t.name}</code>
              <span className="muted">@{t.server}</span>
              <Badges tool={t.tool} />
              <button className="push" onClick={() => toggle(t.name)}>
                {open.has(t.name) ? "Close" : "Run…"}
              </button>
            </div>
            {t.tool.description !== undefined && <p className="muted">{t.tool.description}</p>}
            {open.has(t.name) && <ToolRunner hubTool={t} />}
          </li>
        ))}
      </ul>
    </section>
  )
}

// --- dialogs ---------------------------------------------------------------

const ApprovalDialog = () => {
  const [first] = Approvals.usePendingApprovals()
  if (first === undefined) return null
  const { request } = first
  return (
    <div className="modal" role="dialog" aria-modal="true" aria-label="Confirm tool call">
      <div className="card">
        <h3>
          <ToolIcon tool={request.tool} /> Run {request.tool.title ?? request.tool.name}?
        </h3>
        <p>
          Server <strong>{request.server}</strong>
          {request.trusted ? " (trusted)" : " (not trusted)"}
        </p>
        {first.askedBy !== undefined && (
          <p className="origin" data-testid="approval-origin">
            Asked by {first.askedBy} <span className="muted">({request.origin?.uri})</span>
          </p>
        )}
        <Badges tool={request.tool} />
        {request.warnings.map((w) => (
          <p key={w._tag} className="warning" data-testid={`warning-${w._tag}`}>⚠ {w.message}</p>
        ))}
        <pre>{JSON.stringify(request.arguments ?? {}, null, 2)}</pre>
        <div className="actions">
          <button onClick={first.approveOnce}>Approve once</button>
          <button onClick={first.approveAlways}>Always allow</button>
          <button onClick={() => first.deny("denied in the console")}>Deny</button>
        </div>
      </div>
    </div>
  )
}

/** One field of the server's form, from the React package's field model. */
const FieldInput = ({ field, set, value }: {
  readonly field: Elicitations.Field
  readonly value: Elicitations.Value | undefined
  readonly set: (value: Elicitations.Value) => void
}) => {
  const id = `elicit-${field.name}`
  switch (field._tag) {
    case "Boolean":
      return (
        <input
          id={id}
          name={field.name}
          type="checkbox"
          checked={value === true}
          onChange={(e) => set(e.target.checked)}
        />
      )
    case "Select":
      return (
        <select
          id={id}
          name={field.name}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => set(e.target.value)}
        >
          {(field.default === undefined || !field.required) && <option value="" />}
          {field.choices.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
        </select>
      )
    case "MultiSelect": {
      const chosen = Array.isArray(value) ? value : []
      return (
        <span className="choices" id={id}>
          {field.choices.map((c) => (
            <label key={c.value} className="inline">
              <input
                type="checkbox"
                name={`${field.name}:${c.value}`}
                checked={chosen.includes(c.value)}
                onChange={(e) => set(e.target.checked ? [...chosen, c.value] : chosen.filter((v) => v !== c.value))}
              />{" "}
              {c.label}
            </label>
          ))}
        </span>
      )
    }
    case "Number":
      return (
        <input
          id={id}
          name={field.name}
          type="number"
          step={field.integer ? 1 : "any"}
          min={field.minimum}
          max={field.maximum}
          value={typeof value === "number" || typeof value === "string" ? String(value) : ""}
          onChange={(e) => set(e.target.value)}
        />
      )
    case "Text":
      return (
        <input
          id={id}
          name={field.name}
          type={field.format === "email"
            ? "email"
            : field.format === "uri"
            ? "url"
            : field.format === "date"
            ? "date"
            : "text"}
          placeholder={field.format === "date-time" ? "2026-11-27T16:00:00Z" : undefined}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => set(e.target.value)}
        />
      )
  }
}

const ElicitationForm = ({ request }: { readonly request: Elicitations.PendingElicitation }) => {
  const form = React.useMemo(() => Elicitations.fields(request.params), [request.params])
  const [values, setValues] = React.useState<Record<string, Elicitations.Value>>(() => Elicitations.initialValues(form))
  const submit = (event: React.FormEvent) => {
    event.preventDefault()
    request.accept(Elicitations.contentOf(form, values))
  }
  // the library checks the answer against the server's schema: the form does not second-guess it (noValidate)
  return (
    <form className="schema-form" noValidate onSubmit={submit} data-testid="elicitation-form">
      {form.map((field) => (
        <div key={field.name} className="field">
          <label htmlFor={`elicit-${field.name}`}>
            <span>{field.label}{field.required ? " *" : ""}</span>
          </label>
          <FieldInput
            field={field}
            value={values[field.name]}
            set={(value) => setValues((v) => ({ ...v, [field.name]: value }))}
          />
          {field.description !== undefined && <small className="muted">{field.description}</small>}
        </div>
      ))}
      {request.rejected !== undefined && (
        <p className="error" role="alert" data-testid="elicitation-rejected">
          Not sent: the answer does not match the server's form. {request.rejected}
        </p>
      )}
      <button type="submit">Send</button>
    </form>
  )
}

const ElicitationDialog = () => {
  const [first] = Elicitations.usePendingElicitations()
  if (first === undefined) return null
  const params = first.params
  return (
    <div className="modal" role="dialog" aria-modal="true" aria-label="Server request">
      <div className="card">
        <h3>The server asks</h3>
        <p>{params.message}</p>
        {params.mode === "url" ?
          (
            <p>
              <a href={params.url} target="_blank" rel="noreferrer noopener">{params.url}</a>{" "}
              <button onClick={() => first.accept()}>Done</button>
            </p>
          ) :
          <ElicitationForm key={first.id} request={first} />}
        <div className="actions">
          <button onClick={first.decline}>Decline</button>
          <button onClick={first.cancel}>Dismiss</button>
        </div>
      </div>
    </div>
  )
}

// --- model format, history ---------------------------------------------------

const providers = ["openai-chat", "openai-responses", "anthropic", "gemini"] as const
type Provider = typeof providers[number]
const formatted = (provider: Provider, tools: ReadonlyArray<ServerRegistry.HubTool>): unknown => {
  switch (provider) {
    case "openai-chat":
      return tools.map((t) => ToolFormat.openAiChatTool(t))
    case "openai-responses":
      return tools.map((t) => ToolFormat.openAiResponsesTool(t))
    case "anthropic":
      return tools.map(ToolFormat.anthropicTool)
    case "gemini":
      return { functionDeclarations: tools.map(ToolFormat.geminiFunctionDeclaration) }
  }
}

const ModelTools = () => {
  const tools = Registry.useHubTools()
  const servers = Registry.useServers()
  const [provider, setProvider] = React.useState<Provider>("openai-chat")
  const [server, setServer] = React.useState("*")
  const selected = tools.filter((t) => server === "*" || t.server === server)
  return (
    <section className="card">
      <h2>Connect the tools to a model</h2>
      <div className="row">
        <label>
          Server{" "}
          <select name="model-server" value={server} onChange={(e) => setServer(e.target.value)}>
            <option value="*">all servers</option>
            {servers.map((s) => <option key={s.name} value={s.name}>{s.name}</option>)}
          </select>
        </label>
        <label>
          Format{" "}
          <select name="provider" value={provider} onChange={(e) => setProvider(e.target.value as Provider)}>
            {providers.map((p) => <option key={p} value={p}>{p}</option>)}
          </select>
        </label>
      </div>
      <ul className="tool-chips">
        {selected.map((t) => (
          <li key={t.name}>
            <ToolIcon tool={t.tool} /> {t.name} <Badges tool={t.tool} />
          </li>
        ))}
      </ul>
      <pre className="json" data-testid="model-tools">{JSON.stringify(formatted(provider, selected), null, 2)}</pre>
    </section>
  )
}

const CallHistory = () => {
  const { clear, records, statusOf } = History.useToolCallLog()
  return (
    <section className="card">
      <header className="row">
        <h2>Call history</h2>
        <button onClick={clear}>Clear</button>
      </header>
      <table className="history">
        <thead>
          <tr>
            <th>Started</th>
            <th>Server</th>
            <th>Tool</th>
            <th>Status</th>
            <th>Detail</th>
          </tr>
        </thead>
        <tbody>
          {[...records].reverse().map((r) => (
            <tr key={r.id} data-testid="history-row">
              <td>{new Date(r.startedAt.epochMillis).toLocaleTimeString()}</td>
              <td>{r.server}</td>
              <td>
                {r.tool}
                {r.origin !== undefined && (
                  <span className="muted origin" data-testid="history-origin">app {r.origin.uri}</span>
                )}
              </td>
              <td className={`status status-${statusOf(r)}`}>
                {statusLabel(statusOf(r))}
                {History.taskStatusOf(r) !== undefined && ` (task ${History.taskStatusOf(r)})`}
                {statusOf(r) === "Interrupted" && (
                  <span className="muted">· the page was reloaded while it ran: outcome unknown</span>
                )}
              </td>
              <td className="muted">
                {r.error !== undefined ? `${r.error._tag}: ${r.error.message}` : JSON.stringify(r.arguments ?? {})}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}

// --- page ------------------------------------------------------------------

const Loading = ({ children }: { readonly children: React.ReactNode }) =>
  RuntimeProvider.useRuntime() === null ? <p className="muted">Starting…</p> : <>{children}</>

export const App = () => {
  const [mode, setMode] = React.useState<ApprovalPolicy.Mode>(storedMode)
  const layer = React.useMemo(() => hubLayer(mode), [mode])
  return (
    <RuntimeProvider.Provider key={mode} layer={layer}>
      <header className="top">
        <h1>MCP console</h1>
        <label>
          Approval
          <select
            name="approval-mode"
            value={mode}
            onChange={(e) => {
              const next = e.target.value as ApprovalPolicy.Mode
              storeMode(next)
              setMode(next)
            }}
          >
            {modes.map((m) => <option key={m} value={m}>{m}</option>)}
          </select>
        </label>
      </header>
      <main>
        <Loading>
          <Servers />
          <Tools />
          <AppsPanel />
          <ModelTools />
          <CallHistory />
          <ApprovalDialog />
          <ElicitationDialog />
        </Loading>
      </main>
    </RuntimeProvider.Provider>
  )
}
