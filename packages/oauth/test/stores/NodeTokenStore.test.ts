import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import * as Records from "../../src/internal/store/records.js"
import * as Sealer from "../../src/internal/store/sealer.js"
import * as NodeTokenStore from "../../src/NodeTokenStore.js"
import * as TokenStore from "../../src/TokenStore.js"
import { client, contractSuite, exposeTokens, key, pending, secrets, tokens } from "./contract.js"

const tempDirectory = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped())

contractSuite("Node file store", (options) =>
  Layer.unwrapScoped(
    Effect.map(tempDirectory, (directory) =>
      NodeTokenStore.layer({ directory: Path.join(directory, "tokens"), ...options }))
  ).pipe(Layer.provide(NodeContext.layer)))

const withStore = <A, E>(
  options: NodeTokenStore.Options,
  use: (store: TokenStore.Service) => Effect.Effect<A, E>
) => Effect.flatMap(NodeTokenStore.make(options), use)

const mode = (path: string) => Effect.promise(() => Fs.stat(path)).pipe(Effect.map((s) => s.mode & 0o777))
const files = (directory: string) => Effect.promise(() => Fs.readdir(directory))
const recordFile = (directory: string, kind: Records.RecordName["kind"], id: string) =>
  Effect.map(
    Effect.orDie(Sealer.sha256Hex(Records.recordName(kind, id).text)),
    (hash) => Path.join(directory, `${kind}-${hash}.json`)
  )
const tokensFile = (directory: string) => recordFile(directory, "tokens", Records.tokensId(key))

const expectStoreError = (error: unknown, operation: string, message: RegExp) => {
  expect(error).toBeInstanceOf(TokenStore.TokenStoreError)
  const e = error as TokenStore.TokenStoreError
  expect(e.operation).toBe(operation)
  expect(e.message).toMatch(message)
  for (const s of secrets) {
    expect(String(e)).not.toContain(s)
    expect(JSON.stringify(e)).not.toContain(s)
  }
}

describe("NodeTokenStore", () => {
  it.scoped("creates the directory 0700 and every file 0600", () =>
    Effect.gen(function*() {
      const directory = Path.join(yield* tempDirectory, "nested", "store")
      yield* withStore({ directory }, (store) =>
        Effect.all([store.setTokens(key, tokens), store.setClient(key.issuer, client), store.setPending(pending(0))]))
      expect(yield* mode(directory)).toBe(0o700)
      const names = yield* files(directory)
      expect(names).toHaveLength(4)
      for (const name of names) {
        expect(name).toMatch(/^(store\.key|(tokens|client|pending)-[0-9a-f]{64}\.json)$/)
        expect(yield* mode(Path.join(directory, name))).toBe(0o600)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("tightens a directory and key file that others can read", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      yield* Effect.promise(() => Fs.chmod(directory, 0o755))
      yield* withStore({ directory }, (store) => store.setTokens(key, tokens))
      const keyFile = Path.join(directory, NodeTokenStore.keyFileName)
      yield* Effect.promise(() => Fs.chmod(directory, 0o755))
      yield* Effect.promise(() => Fs.chmod(keyFile, 0o644))
      const read = yield* withStore({ directory }, (store) => store.getTokens(key))
      expect(Option.isSome(read)).toBe(true)
      expect(yield* mode(directory)).toBe(0o700)
      expect(yield* mode(keyFile)).toBe(0o600)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("keeps no secret in plaintext on disk", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      yield* withStore({ directory }, (store) =>
        Effect.all([store.setTokens(key, tokens), store.setClient(key.issuer, client), store.setPending(pending(0))]))
      const names = yield* files(directory)
      expect(names.filter((n) =>
        n.endsWith(".json")
      )).toHaveLength(3)
      for (const name of names) {
        const bytes = yield* Effect.promise(() => Fs.readFile(Path.join(directory, name)))
        for (const s of [...secrets, key.resource, client.registrationClientUri!]) {
          expect(bytes.includes(Buffer.from(s))).toBe(false)
        }
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a fresh instance over the same directory reads what an earlier one wrote", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      yield* withStore({ directory }, (store) => store.setTokens(key, tokens))
      const read = yield* withStore({ directory }, (store) => store.getTokens(key))
      expect(exposeTokens(Option.getOrThrow(read))).toEqual(exposeTokens(tokens))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("uses a key given as an option, in bytes or base64, and writes no key file", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      const raw = globalThis.crypto.getRandomValues(new Uint8Array(32))
      yield* withStore({ directory, key: Redacted.make<Uint8Array | string>(raw) }, (store) =>
        store.setTokens(key, tokens))
      expect(yield* files(directory)).not.toContain(NodeTokenStore.keyFileName)
      const read = yield* withStore(
        { directory, key: Redacted.make<Uint8Array | string>(` ${Encoding.encodeBase64(raw)}\n`) },
        (store) =>
          store.getTokens(key)
      )
      expect(exposeTokens(Option.getOrThrow(read))).toEqual(exposeTokens(tokens))

      const other = Redacted.make<Uint8Array | string>(Encoding.encodeBase64Url(new Uint8Array(32).fill(7)))
      const error = yield* Effect.flip(withStore({ directory, key: other }, (store) => store.getTokens(key)))
      expectStoreError(error, "getTokens", /encrypted with a different key/)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("refuses a key option that is not 32 bytes", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      for (const bad of ["c2hvcnQ=", "not base64 at all!", new Uint8Array(16)]) {
        const error = yield* Effect.flip(NodeTokenStore.make({ directory, key: Redacted.make(bad) }))
        expectStoreError(error, "open", /32 bytes/)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a corrupt key file fails the Layer with a TokenStoreError", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      yield* Effect.promise(() =>
        Fs.writeFile(Path.join(directory, NodeTokenStore.keyFileName), "garbage", { mode: 0o600 })
      )
      const error = yield* Effect.flip(Layer.build(NodeTokenStore.layer({ directory })))
      expectStoreError(error, "open", /key file/)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a corrupt record file is a TokenStoreError for that record only, and can be overwritten", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      const other = { ...key, resource: "https://mcp.example.com/other" }
      yield* withStore(
        { directory },
        (store) => Effect.all([store.setTokens(key, tokens), store.setTokens(other, tokens)])
      )
      const file = yield* tokensFile(directory)
      yield* withStore({ directory }, (store) =>
        Effect.gen(function*() {
          for (const content of ["{not json", "{\"v\":1}", ""]) {
            yield* Effect.promise(() => Fs.writeFile(file, content))
            expectStoreError(yield* Effect.flip(store.getTokens(key)), "getTokens", /corrupt/)
          }
          expect(Option.isSome(yield* store.getTokens(other))).toBe(true)
          yield* store.setTokens(key, tokens)
          expect(Option.isSome(yield* store.getTokens(key))).toBe(true)
        }))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a modified ciphertext, or one moved to another record's file, does not decrypt", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      const other = { ...key, resource: "https://mcp.example.com/other" }
      yield* withStore({ directory }, (store) =>
        Effect.gen(function*() {
          yield* store.setTokens(key, tokens)
          const file = yield* tokensFile(directory)
          const envelope = JSON.parse(yield* Effect.promise(() => Fs.readFile(file, "utf8")))
          const ct = Either.getOrThrow(Encoding.decodeBase64(envelope.ct))
          ct[0] = ct[0]! ^ 1
          yield* Effect.promise(() =>
            Fs.writeFile(file, JSON.stringify({ ...envelope, ct: Encoding.encodeBase64(ct) }))
          )
          expectStoreError(yield* Effect.flip(store.getTokens(key)), "getTokens", /could not be decrypted/)

          yield* store.setTokens(key, tokens)
          const otherFile = yield* recordFile(directory, "tokens", Records.tokensId(other))
          yield* Effect.promise(() => Fs.copyFile(file, otherFile))
          expectStoreError(yield* Effect.flip(store.getTokens(other)), "getTokens", /could not be decrypted/)
        }))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a record that decrypts but does not decode fails without quoting it", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      const raw = globalThis.crypto.getRandomValues(new Uint8Array(32))
      const { key: cryptoKey, keyId } = yield* Effect.orDie(Sealer.importRawKey(raw))
      const name = Records.recordName("tokens", Records.tokensId(key))
      const sealed = yield* Effect.orDie(
        Sealer.aesGcm(cryptoKey, keyId, "fail").seal(JSON.stringify({ accessToken: secrets[0], tokenType: 42 }), name)
      )
      yield* withStore({ directory, key: Redacted.make<Uint8Array | string>(raw) }, (store) =>
        Effect.gen(function*() {
          const file = yield* tokensFile(directory)
          yield* Effect.promise(() => Fs.writeFile(file, sealed))
          expectStoreError(yield* Effect.flip(store.getTokens(key)), "getTokens", /does not decode/)
        }))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("leaves no temporary files behind and refuses a path that is a file", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      yield* withStore({ directory }, (store) =>
        Effect.forEach([1, 2, 3], (i) =>
          store.setTokens(key, { ...tokens, accessToken: Redacted.make(`v${i}`) })))
      expect((yield* files(directory)).filter((n) =>
        n.includes(".tmp")
      )).toEqual([])

      const file = Path.join(directory, "plain-file")
      yield* Effect.promise(() => Fs.writeFile(file, ""))
      expectStoreError(yield* Effect.flip(NodeTokenStore.make({ directory: file })), "open", /directory/)
    }).pipe(Effect.provide(NodeContext.layer)))
})
