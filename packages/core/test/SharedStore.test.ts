import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SharedStore from "../src/SharedStore.js"
import { Pair, sharedStoreContract } from "./sharedStore/contract.js"

// one process: both services over one store share its lock and its changes
sharedStoreContract(
  "memory",
  Layer.effect(Pair, Effect.map(SharedStore.SharedStore, (store) => ({ a: store, b: store }))).pipe(
    Layer.provide(SharedStore.layerMemory)
  )
)
sharedStoreContract(
  "over a KeyValueStore",
  Layer.effect(
    Pair,
    Effect.map(
      KeyValueStore.KeyValueStore,
      (kv) => ({ a: SharedStore.fromKeyValueStore(kv), b: SharedStore.fromKeyValueStore(kv) })
    )
  ).pipe(Layer.provide(KeyValueStore.layerMemory))
)
