// server-everything over Streamable HTTP, started on a free loopback port and stopped afterwards.
import { FetchHttpClient } from "@effect/platform"
import { HttpTransport } from "@mcp-effect/transport-http"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { startEverything } from "../packages/transport-http/test/fixtures/everything.js"
import { everythingSuite } from "./everything.js"

everythingSuite(
  "streamable HTTP: server-everything",
  Layer.unwrapScoped(
    Effect.map(
      Effect.acquireRelease(Effect.promise(startEverything), (server) => Effect.promise(server.close)),
      (server) => HttpTransport.layer({ url: server.url }).pipe(Layer.provide(FetchHttpClient.layer))
    )
  )
)
