// server-everything over stdio, with both process backends.
import { NodeContext } from "@effect/platform-node"
import { NodeStdioTransport, StdioTransport } from "@mcp-effect/transport-stdio"
import * as Layer from "effect/Layer"
import { everythingEntry, everythingSuite } from "./everything.js"

const server = { command: process.execPath, args: [everythingEntry, "stdio"] }

everythingSuite("stdio (Node child_process): server-everything", NodeStdioTransport.layer(server))
everythingSuite(
  "stdio (platform Command): server-everything",
  StdioTransport.layer(server).pipe(Layer.provide(NodeContext.layer))
)
