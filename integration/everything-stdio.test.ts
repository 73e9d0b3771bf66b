// server-everything over stdio.
import { NodeContext } from "@effect/platform-node"
import { StdioTransport } from "@mcp-effect/transport-stdio"
import * as Layer from "effect/Layer"
import { everythingEntry, everythingSuite } from "./everything.js"

everythingSuite(
  "stdio: server-everything",
  StdioTransport.layer({ command: process.execPath, args: [everythingEntry, "stdio"] }).pipe(
    Layer.provide(NodeContext.layer)
  )
)
