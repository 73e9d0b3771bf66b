// The secrets scan (fixtures/secretsScan.ts) over the hub's file KeyValueStore and the file token
// store: no secret in a log, a span, a stored byte, a status or an error.
import { NodeContext } from "@effect/platform-node"
import { describe, it } from "@effect/vitest"
import { NodeTokenStore } from "@mcp-effect/oauth"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as NodeFileKeyValueStore from "../src/NodeFileKeyValueStore.js"
import { scan } from "./fixtures/secretsScan.js"

/** Every file under a directory (its name and its bytes), as text. */
const filesUnder = (directory: string): Array<string> =>
  Fs.readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => `${entry.name}\n${Fs.readFileSync(Path.join(entry.parentPath, entry.name), "utf8")}`)

const temporaryDirectory = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-secrets-scan-"))),
  (directory) => Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true }))
)

describe("secrets scan", () => {
  it.scopedLive("no secret reaches a log, a span, a file store, a status or an error", () =>
    Effect.gen(function*() {
      const storage = yield* temporaryDirectory
      const tokens = yield* temporaryDirectory
      yield* scan({
        storage: NodeFileKeyValueStore.layer(storage),
        tokens: NodeTokenStore.layer({ directory: tokens }).pipe(Layer.provide(NodeContext.layer)),
        bytes: Effect.sync(() => [...filesUnder(storage), ...filesUnder(tokens)].join("\n")),
        // no ConfigSealer given: the file store seals the added servers' secrets with its own key file
        sealsConfigs: true
      })
    }), { timeout: 60_000 })
})
