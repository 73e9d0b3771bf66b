import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Option from "effect/Option"
import type * as McpApps from "../../McpApps.js"
import type * as McpClient from "../../McpClient.js"
import type * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"

/** @internal */
export const extensionId = "io.modelcontextprotocol/ui" as const
/** @internal */
export const mimeType = "text/html;profile=mcp-app" as const
/** The key servers of the first drafts put the resource URI under, still written by the SDK next to `ui`. */
const legacyUriKey = "ui/resourceUri"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const uiMeta = (meta: unknown): Record<string, unknown> | undefined => {
  if (!isRecord(meta)) return undefined
  const ui = meta["ui"]
  return isRecord(ui) ? ui : undefined
}

/** @internal */
export const isUiUri = (uri: string): boolean => uri.startsWith("ui://") && uri.length > "ui://".length

/** @internal */
export const resourceUri = (tool: McpSchema.Tool): Option.Option<string> => {
  const declared = uiMeta(tool._meta)?.["resourceUri"]
  const legacy = isRecord(tool._meta) ? tool._meta[legacyUriKey] : undefined
  const uri = typeof declared === "string" ? declared : legacy
  return typeof uri === "string" && isUiUri(uri) ? Option.some(uri) : Option.none()
}

const both: ReadonlyArray<McpApps.Visibility> = ["model", "app"]

/** @internal */
export const visibility = (tool: McpSchema.Tool): ReadonlyArray<McpApps.Visibility> => {
  const ui = uiMeta(tool._meta)
  if (ui === undefined || !("visibility" in ui) || ui["visibility"] === undefined) return both
  const declared = ui["visibility"]
  // declared but not a list: nobody is assumed to be allowed
  if (!Array.isArray(declared)) return []
  return both.filter((v) => declared.includes(v))
}

/** @internal */
export const isModelVisible = (tool: McpSchema.Tool): boolean => visibility(tool).includes("model")

/** @internal */
export const isAppVisible = (tool: McpSchema.Tool): boolean => visibility(tool).includes("app")

// `https://host`, `https://*.host`, `wss://host:8443`: a scheme, a host (with at most a leading `*.`) and a port
const domainPattern = /^(https?|wss?):\/\/(\*\.)?[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)*(:[0-9]{1,5})?$/

const domainList = (
  uri: string,
  csp: Record<string, unknown>,
  key: keyof McpApps.Csp
): Either.Either<ReadonlyArray<string>, Problem> => {
  const value = csp[key]
  if (value === undefined) return Either.right([])
  if (!Array.isArray(value)) return Either.left(invalidCsp(uri, `_meta.ui.csp.${key} is not a list`))
  const list: Array<string> = []
  for (const domain of value) {
    // a source that is not an origin (`'unsafe-eval'`, `*`, one with `;`) could widen or rewrite the policy
    if (typeof domain !== "string" || !domainPattern.test(domain)) {
      return Either.left(
        invalidCsp(uri, `_meta.ui.csp.${key} holds ${JSON.stringify(domain).slice(0, 80)}, not an origin`)
      )
    }
    list.push(domain)
  }
  return Either.right(list)
}

/** Why a resource is not a UI: the public module makes the error of it. */
export interface Problem {
  readonly reason: McpApps.McpAppsError["reason"]
  readonly uri: string
  readonly message: string
}
const error = (reason: Problem["reason"], uri: string, message: string): Problem => ({ reason, uri, message })
const invalidCsp = (uri: string, message: string) => error("InvalidCsp", uri, message)

const permissionNames = ["camera", "microphone", "geolocation", "clipboardWrite"] as const

/** @internal */
export const fromContents = (
  uri: string,
  result: McpSchema.ReadResourceResult
): Either.Either<McpApps.UiResource, Problem> => {
  const content = result.contents.find((c) => c.uri === uri) ?? result.contents[0]
  if (content === undefined) return Either.left(error("NotFound", uri, `the server returned no contents for ${uri}`))
  if (content.mimeType !== mimeType) {
    return Either.left(
      error("WrongMimeType", uri, `${uri} is ${JSON.stringify(content.mimeType ?? "untyped")}, not ${mimeType}`)
    )
  }
  let html: string
  if ("text" in content) html = content.text
  else {
    const bytes = Encoding.decodeBase64(content.blob)
    if (Either.isLeft(bytes)) return Either.left(error("NotHtml", uri, `${uri}: the blob is not base64`))
    html = new TextDecoder().decode(bytes.right)
  }
  const ui = uiMeta(content._meta) ?? {}
  const csp = isRecord(ui["csp"]) ? ui["csp"] : {}
  const lists = Either.all({
    connectDomains: domainList(uri, csp, "connectDomains"),
    resourceDomains: domainList(uri, csp, "resourceDomains"),
    frameDomains: domainList(uri, csp, "frameDomains"),
    baseUriDomains: domainList(uri, csp, "baseUriDomains")
  })
  if (Either.isLeft(lists)) return Either.left(lists.left)
  const permissions = isRecord(ui["permissions"]) ? ui["permissions"] : {}
  return Either.right({
    uri,
    html,
    csp: lists.right,
    permissions: permissionNames.filter((name) => isRecord(permissions[name])),
    prefersBorder: typeof ui["prefersBorder"] === "boolean" ? ui["prefersBorder"] : undefined,
    domain: typeof ui["domain"] === "string" ? ui["domain"] : undefined
  })
}

/** @internal */
export const read = (
  client: McpClient.Service,
  uri: string,
  fail: (problem: Problem) => McpApps.McpAppsError
): Effect.Effect<McpApps.UiResource, McpApps.McpAppsError | McpError.McpClientError> =>
  isUiUri(uri) ?
    Effect.flatMap(
      client.readResource(uri),
      (result) =>
        Either.match(fromContents(uri, result), { onLeft: (p) => Effect.fail(fail(p)), onRight: Effect.succeed })
    ) :
    Effect.fail(fail(error("NotUiResource", uri, `${JSON.stringify(uri.slice(0, 200))} is not a ui:// resource`)))

const sources = (fixed: ReadonlyArray<string>, domains: ReadonlyArray<string>) => {
  const all = [...fixed, ...domains]
  return all.length === 0 ? "'none'" : all.join(" ")
}

/** @internal */
export const contentSecurityPolicy = (csp: McpApps.Csp): string =>
  [
    "default-src 'none'",
    `script-src ${sources(["'unsafe-inline'"], csp.resourceDomains)}`,
    `style-src ${sources(["'unsafe-inline'"], csp.resourceDomains)}`,
    `img-src ${sources(["data:", "blob:"], csp.resourceDomains)}`,
    `font-src ${sources(["data:"], csp.resourceDomains)}`,
    `media-src ${sources(["data:", "blob:"], csp.resourceDomains)}`,
    `connect-src ${sources([], csp.connectDomains)}`,
    `frame-src ${sources([], csp.frameDomains)}`,
    `base-uri ${sources([], csp.baseUriDomains)}`,
    "form-action 'none'",
    "object-src 'none'"
  ].join("; ")

const permissionPolicy: Record<McpApps.Permission, string> = {
  camera: "camera",
  microphone: "microphone",
  geolocation: "geolocation",
  clipboardWrite: "clipboard-write"
}

/** @internal */
export const allow = (permissions: ReadonlyArray<McpApps.Permission>): string =>
  permissions.map((p) => permissionPolicy[p]).join("; ")
