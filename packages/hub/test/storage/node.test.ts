import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as NodeFileKeyValueStore from "../../src/NodeFileKeyValueStore.js"
import { keyValueContract } from "./contract.js"

keyValueContract("memory", KeyValueStore.layerMemory)
keyValueContract(
  "Node files",
  NodeFileKeyValueStore.layer(Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "hub-kv-")), "store"))
)
