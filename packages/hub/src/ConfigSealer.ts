/**
 * Seals the secrets of a server config before it is stored, and opens them
 * when it is read back: a server added at run time with a literal token in
 * its `headers`, `env` or `auth`, or a key in its URL's query, never lands
 * in a store (a file, Redis) in clear text.
 *
 * `seal` and `unseal` map one config record to another of the same shape:
 * each secret string is replaced by `mcp-effect:sealed:v1:<iv>:<ciphertext>`
 * (AES-256-GCM, a fresh IV per value, the server's name and the field's
 * path as additional data, so a sealed value cannot be moved to another
 * server or field). Everything else (name, command, arguments, flags) stays
 * readable. Sealing a sealed value, or opening a plain one, leaves it as it
 * is, so records stored before sealing was turned on still load.
 *
 * What is sealed: every `env` and `headers` value, the `url` when it has a
 * query or user info, and the secret fields of `auth` (`token`, `key`,
 * `password`, `clientSecret`, `privateKey`); not a value made only of
 * `${VAR}` references (without defaults), which holds no secret.
 *
 * `ServerRegistry.makeStored` (and so `NodeHub` / `BrowserHub`) seals with the
 * `ConfigSealer` found where it is built:
 *
 * ```ts
 * import { ConfigSealer } from "@mcp-effect/hub"
 * import { NodeHub, NodeFileKeyValueStore } from "@mcp-effect/hub/node"
 * import * as Layer from "effect/Layer"
 * import * as Redacted from "effect/Redacted"
 *
 * const Hub = NodeHub.layer({ config: "mcp.json", storage: NodeFileKeyValueStore.layer(".mcp-effect") }).pipe(
 *   Layer.provide(ConfigSealer.layer(Redacted.make(process.env.MCP_CONFIG_KEY ?? "")))
 * )
 * ```
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as ServerConfig from "./ServerConfig.js"

/**
 * A key that cannot be used, or a sealed value that cannot be opened (another
 * key, or modified). Never quotes a value.
 *
 * @since 0.3.0
 * @category errors
 */
export class ConfigSealError extends Schema.TaggedError<ConfigSealError>("@mcp-effect/hub/ConfigSealError")(
  "ConfigSealError",
  { message: Schema.String }
) {}

/**
 * @since 0.3.0
 * @category models
 */
export interface Service {
  readonly seal: (config: ServerConfig.ServerConfig) => Effect.Effect<ServerConfig.ServerConfig, ConfigSealError>
  readonly unseal: (config: ServerConfig.ServerConfig) => Effect.Effect<ServerConfig.ServerConfig, ConfigSealError>
}

/**
 * @since 0.3.0
 * @category tags
 */
export class ConfigSealer extends Context.Tag("@mcp-effect/hub/ConfigSealer")<ConfigSealer, Service>() {}

const prefix = "mcp-effect:sealed:v1:"

/**
 * Whether a stored string is a sealed value.
 *
 * @since 0.3.0
 * @category guards
 */
export const isSealed = (value: string): boolean => value.startsWith(prefix)

/** A value that is only `${VAR}` references, without defaults: nothing to hide. */
const onlyReferences = /^(?:\$\{[A-Za-z_][A-Za-z0-9_]*\})+$/

/** The fields of `auth` that hold secrets (`Redacted` in `ServerAuth`). */
const authSecrets: ReadonlySet<string> = new Set(["token", "key", "password", "clientSecret", "privateKey"])

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const keyBytes = 32

const keyFrom = (key: Redacted.Redacted<Uint8Array | string>): Option.Option<Uint8Array> => {
  const value = Redacted.value(key)
  if (typeof value !== "string") return Option.liftPredicate(value, (bytes) => bytes.length === keyBytes)
  const text = value.trim()
  return Either.getRight(Encoding.decodeBase64(text)).pipe(
    Option.orElse(() => Either.getRight(Encoding.decodeBase64Url(text))),
    Option.filter((bytes) => bytes.length === keyBytes)
  )
}

const subtle = (): Effect.Effect<SubtleCrypto, ConfigSealError> =>
  globalThis.crypto?.subtle === undefined
    ? Effect.fail(new ConfigSealError({ message: "WebCrypto is unavailable (it needs a secure context)" }))
    : Effect.succeed(globalThis.crypto.subtle)

/** Applies `f` to each secret string of a config, with the path that names its field. */
const mapSecrets = (
  config: ServerConfig.ServerConfig,
  f: (value: string, path: string) => Effect.Effect<string, ConfigSealError>
): Effect.Effect<ServerConfig.ServerConfig, ConfigSealError> =>
  Effect.gen(function*() {
    const record = (values: Readonly<Record<string, string>>, path: string) =>
      Effect.map(
        Effect.forEach(
          Object.entries(values),
          ([k, v]) => Effect.map(f(v, `${path}.${k}`), (sealed) => [k, sealed] as const)
        ),
        (entries) => Object.fromEntries(entries)
      )
    const t = config.transport
    const transport: ServerConfig.Transport = t._tag === "Stdio"
      ? { ...t, env: yield* record(t.env, "env") }
      : {
        ...t,
        url: isSealed(t.url) || /[?@]/.test(t.url) ? yield* f(t.url, "url") : t.url,
        headers: yield* record(t.headers, "headers")
      }
    const auth = config.auth === undefined ? undefined : Object.fromEntries(
      yield* Effect.forEach(Object.entries(config.auth), ([k, v]) =>
        authSecrets.has(k) && typeof v === "string"
          ? Effect.map(f(v, `auth.${k}`), (sealed) => [k, sealed] as const)
          : Effect.succeed([k, v] as const))
    ) as ServerConfig.ServerConfig["auth"]
    return { ...config, transport, ...(auth === undefined ? {} : { auth }) }
  })

/**
 * A sealer over a 32-byte key (or its base64 / base64url encoding), e.g.
 * `openssl rand -base64 32` kept in a secret manager.
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (key: Redacted.Redacted<Uint8Array | string>): Effect.Effect<Service, ConfigSealError> =>
  Effect.gen(function*() {
    const raw = yield* Option.match(keyFrom(key), {
      onNone: () =>
        Effect.fail(
          new ConfigSealError({ message: "the key must be 32 bytes, or their base64 or base64url encoding" })
        ),
      onSome: Effect.succeed
    })
    const crypto = yield* subtle()
    const cryptoKey = yield* Effect.tryPromise({
      try: () => crypto.importKey("raw", Uint8Array.from(raw), { name: "AES-GCM" }, false, ["encrypt", "decrypt"]),
      catch: () => new ConfigSealError({ message: "the key could not be imported" })
    })
    const data = (config: ServerConfig.ServerConfig, path: string) => encoder.encode(`${config.name}\0${path}`)
    const seal = (config: ServerConfig.ServerConfig) =>
      mapSecrets(
        config,
        (value, path) =>
          isSealed(value) || onlyReferences.test(value) ? Effect.succeed(value) : Effect.tryPromise({
            try: async () => {
              const iv = globalThis.crypto.getRandomValues(new Uint8Array(12))
              const sealed = await crypto.encrypt(
                { name: "AES-GCM", iv, additionalData: data(config, path) },
                cryptoKey,
                encoder.encode(value)
              )
              return `${prefix}${Encoding.encodeBase64Url(iv)}:${Encoding.encodeBase64Url(new Uint8Array(sealed))}`
            },
            catch: () => new ConfigSealError({ message: `sealing ${config.name}.${path} failed` })
          })
      )
    const unseal = (config: ServerConfig.ServerConfig) =>
      mapSecrets(config, (value, path) => {
        if (!isSealed(value)) return Effect.succeed(value)
        const unreadable = new ConfigSealError({
          message: `the sealed ${config.name}.${path} cannot be opened (another key, or modified)`
        })
        const [iv, ciphertext] = value.slice(prefix.length).split(":").map((part) =>
          Encoding.decodeBase64Url(part ?? "")
        )
        if (iv === undefined || ciphertext === undefined || Either.isLeft(iv) || Either.isLeft(ciphertext)) {
          return Effect.fail(unreadable)
        }
        return Effect.tryPromise({
          try: () =>
            crypto.decrypt(
              { name: "AES-GCM", iv: Uint8Array.from(iv.right), additionalData: data(config, path) },
              cryptoKey,
              Uint8Array.from(ciphertext.right)
            ),
          catch: () => unreadable
        }).pipe(Effect.map((plain) => decoder.decode(plain)))
      })
    return { seal, unseal }
  })

/**
 * @since 0.3.0
 * @category layers
 */
export const layer = (key: Redacted.Redacted<Uint8Array | string>): Layer.Layer<ConfigSealer, ConfigSealError> =>
  Layer.effect(ConfigSealer, make(key))
