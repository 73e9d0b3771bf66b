/**
 * The official SDK client (`@modelcontextprotocol/sdk` `Client`) over its
 * stdio and Streamable HTTP transports, used the documented way.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { childEnv, type ServerCommand } from "../servers.js"
import { checkEcho, countOf, echoCall, elapsedSince, type Holder, type Subject } from "../subject.js"

const connect = async (transport: Transport): Promise<Client> => {
  const client = new Client({ name: "bench-sdk", version: "1.0.0" })
  await client.connect(transport)
  return client
}

const subject = async (client: Client): Promise<Subject> => {
  checkEcho("sdk", await client.callTool(echoCall))
  return {
    sequential: async (n) => {
      const start = performance.now()
      for (let i = 0; i < n; i++) await client.callTool(echoCall)
      return elapsedSince(start)
    },
    concurrent: async (n) => {
      const start = performance.now()
      await Promise.all(Array.from({ length: n }, () => client.callTool(echoCall)))
      return elapsedSince(start)
    },
    close: () => client.close()
  }
}

/** A connected, initialized stdio session with its own server process. */
export const openStdio = (server: ServerCommand): Promise<Client> =>
  connect(
    new StdioClientTransport({ command: server.command, args: [...server.args], env: childEnv(), stderr: "inherit" })
  )

export const startStdio = async (server: ServerCommand): Promise<Subject> => subject(await openStdio(server))

export const startHolder = async (server: ServerCommand): Promise<Holder> => {
  const client = await openStdio(server)
  return {
    hold: async (n) => {
      await Promise.all(Array.from({ length: n }, () => client.callTool({ name: "hold" })))
    },
    pending: async () => countOf(await client.callTool({ name: "pending" })),
    release: async () => {
      await client.callTool({ name: "release" })
    },
    close: () => client.close()
  }
}

/** A connected HTTP session (initialized, GET stream opened by the SDK as it chooses). */
export const openHttp = (url: string): Promise<Client> => connect(new StreamableHTTPClientTransport(new URL(url)))

export const startHttp = async (url: string): Promise<Subject> => subject(await openHttp(url))
