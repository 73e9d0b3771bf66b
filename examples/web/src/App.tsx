/**
 * The console: servers, their tools, tool runs with approval, the call
 * history and the tools in a model provider's format.
 */
import type { ApprovalPolicy, Elicitation, McpSchema } from "@mcp-effect/core"
import { ServerRegistry, ToolFormat } from "@mcp-effect/hub"
import { Approvals, Elicitations, History, Registry, RuntimeProvider, ToolCall } from "@mcp-effect/react"
import * as Effect from "effect/Effect"
import * as React from "react"
import { hubLayer, modes, storedMode, storeMode } from "./hub.js"
import { SchemaForm } from "./schemaForm.js"

const useRegistryAction = () => {
  const runtime = RuntimeProvider.useRuntime()
  const [error, setError] = React.useState<string | undefined>(undefined)
  const run = React.useCallback((f: (registry: ServerRegistry.Service) => Effect.Effect<void, unknown>) => {
    if (runtime === null) return
    setError(undefined)
    runtime.runPromise(Effect.flatMap(ServerRegistry.ServerRegistry, f)).catch((e: unknown) =>
      setError(e instanceof Error ? e.message : String(e))
    )
  }, [runtime])
  return { run, error }
}

const errorText = (error: unknown): string =>
  error === undefined ? "" : typeof error === "object" && error !== null && "message" in error ?
    `${(error as { _tag?: string })._tag ?? "Error"}: ${String((error as { message: unknown }).message)}` :
    String(error)

// --- servers ---------------------------------------------------------------

const StatusBadge = ({ status }: { readonly status: ServerRegistry.ServerStatus }) => (
  <span className={`status status-${status._tag}`} data-testid={`status-${status.name}`}>{status._tag}</span>
)

const ServerRow = ({ status }: { readonly status: ServerRegistry.ServerStatus }) => {
  const { error, run } = useRegistryAction()
  return (
    <tr data-testid={`server-${status.name}`}>
      <td>{status.name}{status.trusted && <span className="badge trusted">trusted</span>}</td>
      <td>{status.transport === "sse" ? "SSE (legacy)" : status.transport === "http" ? "Streamable HTTP" : status.transport}</td>
      <td><StatusBadge status={status} /></td>
      <td><code data-testid={`session-${status.name}`}>{status.sessionId ?? "-"}</code></td>
      <td>{status.toolCount}</td>
      <td className="error">{errorText(status.lastError)}{error}</td>
      <td className="actions">
        <button onClick={() => run((r) => r.reconnect(status.name))}>Reconnect</button>
        <button onClick={() => run((r) => r.remove(status.name))}>Remove</button>
      </td>
    </tr>
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
  const [tested, setTested] = React.useState<string | undefined>(undefined)
  const { error, run } = useRegistryAction()
  const status = Registry.useServer(tested ?? "")
  const tools = Registry.useHubTools().filter((t) => t.server === tested)

  const connect = () => {
    const config = {
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
    }
    // a new test replaces the previous one
    run((r) =>
      Effect.gen(function*() {
        if (tested !== undefined) yield* r.remove(tested)
        yield* r.add(config)
      })
    )
    setTested(config.name)
  }
  const cancel = () => {
    if (tested !== undefined) run((r) => r.remove(tested))
    onDone()
  }
  return (
    <section className="card add-server" aria-label="Add server">
      <h3>Add server</h3>
      <label>Name <input name="server-name" value={name} onChange={(e) => setName(e.target.value)} /></label>
      <label>URL <input name="server-url" value={url} placeholder="http://127.0.0.1:3000/mcp" onChange={(e) => setUrl(e.target.value)} /></label>
      <label>
        Transport
        <select name="transport" value={transport} onChange={(e) => setTransport(e.target.value as "Http" | "Sse")}>
          <option value="Http">Streamable HTTP</option>
          <option value="Sse">HTTP+SSE (legacy)</option>
        </select>
      </label>
      <label className="inline"><input type="checkbox" name="trusted" checked={trusted} onChange={(e) => setTrusted(e.target.checked)} /> Trusted server</label>
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
          <label>Client ID <input name="client-id" value={clientId} onChange={(e) => setClientId(e.target.value)} /></label>
          <label>Scopes <input name="scopes" value={scopes} placeholder="mcp:read" onChange={(e) => setScopes(e.target.value)} /></label>
          <p className="hint">
            The authorization and token endpoints are discovered from the server (protected-resource metadata, then
            the authorization server's metadata). Tokens are stored encrypted in this browser.
          </p>
        </fieldset>
      )}
      <div className="actions">
        <button disabled={name.trim() === "" || url.trim() === ""} onClick={connect}>
          {auth === "oauth2" ? "Authorize" : "Test Connection"}
        </button>
        <button disabled={status?._tag !== "Connected"} onClick={onDone}>Save</button>
        <button onClick={cancel}>Cancel</button>
      </div>
      {error !== undefined && <p className="error" role="alert">{error}</p>}
      {status !== undefined && (
        <div className="test-result" data-testid="test-result">
          <p>
            <StatusBadge status={status} /> {status.serverInfo !== undefined && `${status.serverInfo.name} ${status.serverInfo.version}`}
            {status.protocolVersion !== undefined && <span className="muted"> · protocol {status.protocolVersion}</span>}
          </p>
          <p>Mcp-Session-Id: <code data-testid="test-session">{status.sessionId ?? "-"}</code></p>
          {status.lastError !== undefined && <p className="error">{errorText(status.lastError)}</p>}
          <ul className="tool-chips">{tools.map((t) => <li key={t.name}><ToolIcon tool={t.tool} /> {t.tool.title ?? t.tool.name}</li>)}</ul>
        </div>
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
      <table className="servers">
        <thead><tr><th>Name</th><th>Transport</th><th>Status</th><th>Mcp-Session-Id</th><th>Tools</th><th>Error</th><th /></tr></thead>
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

const ToolRunner = ({ hubTool }: { readonly hubTool: ServerRegistry.HubTool }) => {
  const client = Registry.useServerClient(hubTool.server)
  const call = ToolCall.useToolCall(hubTool.tool.name, { client })
  const progress = call.progress
  const percent = progress?.total !== undefined && progress.total > 0 ? Math.round((progress.progress / progress.total) * 100) : undefined
  const text = call.result?.content.map((b) => b.type === "text" ? b.text : `[${b.type}]`).join("\n")
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
          <p>Status: <strong data-testid="call-status">{call.status}</strong>
            {call.task !== undefined && (
              <> · task <code>{call.task.taskId}</code> <strong data-testid="task-status">{call.task.status}</strong>
                {call.task.statusMessage !== undefined && <span className="muted"> · {call.task.statusMessage}</span>}</>
            )}
          </p>
          {progress !== undefined && (
            <div className="progress">
              <progress max={progress.total ?? undefined} value={progress.progress} data-testid="progress" />
              <span>{percent !== undefined ? `${percent}%` : progress.progress}{progress.message !== undefined && ` · ${progress.message}`}</span>
            </div>
          )}
          {call.status === "Running" && <button onClick={call.cancel}>{call.task !== undefined ? "Cancel task" : "Cancel"}</button>}
          {text !== undefined && <pre className={call.result?.isError === true ? "error" : "result"} data-testid="call-result">{text}</pre>}
          {call.error !== undefined && <p className="error" role="alert" data-testid="call-error">{errorText(call.error)}</p>}
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
        <h3><ToolIcon tool={request.tool} /> Run {request.tool.title ?? request.tool.name}?</h3>
        <p>Server <strong>{request.server}</strong>{request.trusted ? " (trusted)" : " (not trusted)"}</p>
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
          <p><a href={params.url} target="_blank" rel="noreferrer noopener">{params.url}</a> <button onClick={() => first.accept()}>Done</button></p> :
          <SchemaForm schema={params.requestedSchema as { readonly [k: string]: unknown }} idPrefix="elicit" submitLabel="Send" onSubmit={(values) => first.accept(values as Elicitation.Content)} />}
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
        <label>Server <select name="model-server" value={server} onChange={(e) => setServer(e.target.value)}>
          <option value="*">all servers</option>
          {servers.map((s) => <option key={s.name} value={s.name}>{s.name}</option>)}
        </select></label>
        <label>Format <select name="provider" value={provider} onChange={(e) => setProvider(e.target.value as Provider)}>
          {providers.map((p) => <option key={p} value={p}>{p}</option>)}
        </select></label>
      </div>
      <ul className="tool-chips">{selected.map((t) => <li key={t.name}><ToolIcon tool={t.tool} /> {t.name} <Badges tool={t.tool} /></li>)}</ul>
      <pre className="json" data-testid="model-tools">{JSON.stringify(formatted(provider, selected), null, 2)}</pre>
    </section>
  )
}

const CallHistory = () => {
  const { clear, records } = History.useToolCallLog()
  return (
    <section className="card">
      <header className="row"><h2>Call history</h2><button onClick={clear}>Clear</button></header>
      <table className="history">
        <thead><tr><th>Started</th><th>Server</th><th>Tool</th><th>Status</th><th>Detail</th></tr></thead>
        <tbody>
          {[...records].reverse().map((r) => (
            <tr key={r.id} data-testid="history-row">
              <td>{new Date(r.startedAt.epochMillis).toLocaleTimeString()}</td>
              <td>{r.server}</td>
              <td>{r.tool}</td>
              <td className={`status status-${r.status}`}>{r.status}{r.taskStatus !== undefined && ` (task ${r.taskStatus})`}</td>
              <td className="muted">{r.error !== undefined ? `${r.error._tag}: ${r.error.message}` : JSON.stringify(r.arguments ?? {})}</td>
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
          <select name="approval-mode" value={mode} onChange={(e) => {
            const next = e.target.value as ApprovalPolicy.Mode
            storeMode(next)
            setMode(next)
          }}>
            {modes.map((m) => <option key={m} value={m}>{m}</option>)}
          </select>
        </label>
      </header>
      <main>
        <Loading>
          <Servers />
          <Tools />
          <ModelTools />
          <CallHistory />
          <ApprovalDialog />
          <ElicitationDialog />
        </Loading>
      </main>
    </RuntimeProvider.Provider>
  )
}
