import { describe, expect, it } from "@effect/vitest"
import type { McpSchema } from "@mcp-effect/core"
import * as Naming from "../src/internal/naming.js"

const tool = (name: string): McpSchema.Tool => ({ name, inputSchema: { type: "object" } }) as McpSchema.Tool
const server = (name: string, ...tools: ReadonlyArray<string>) => ({ server: name, tools: tools.map(tool) })
const names = (servers: Parameters<typeof Naming.assign>[0], prefix: "onCollision" | "always" = "onCollision") =>
  Naming.assign(servers, prefix).map((t) => `${t.server}:${t.tool.name}=${t.name}`)

describe("tool names", () => {
  it("keeps unique names, prefixes every side of a collision", () => {
    expect(names([server("a", "echo", "add"), server("b", "echo", "list")])).toEqual([
      "a:echo=a__echo",
      "a:add=add",
      "b:echo=b__echo",
      "b:list=list"
    ])
  })

  it("does not depend on the order servers are listed or connected in", () => {
    const one = Naming.assign([server("a", "echo", "x"), server("b", "echo")], "onCollision")
    const other = Naming.assign([server("b", "echo"), server("a", "echo", "x")], "onCollision")
    const key = (t: { readonly server: string; readonly tool: McpSchema.Tool; readonly name: string }) =>
      `${t.server}/${t.tool.name}/${t.name}`
    expect(one.map(key).sort()).toEqual(other.map(key).sort())
  })

  it("replaces characters providers refuse, and sees collisions after that", () => {
    expect(names([server("my.server", "files/read"), server("x y", "files.read")])).toEqual([
      "my.server:files/read=my_server__files_read",
      "x y:files.read=x_y__files_read"
    ])
  })

  it("fits 64 characters with a stable hash, and separates what would still collide", () => {
    const long = "t".repeat(80)
    const [only] = Naming.assign([server("a", long)], "onCollision")
    expect(only!.name).toHaveLength(64)
    expect(only!.name).toBe(`${"t".repeat(55)}_${Naming.hash8(`a\u0000${long}`)}`)
    const clash = Naming.assign([server("a.b", "x"), server("a_b", "x")], "onCollision")
    expect(clash[0]!.name).not.toBe(clash[1]!.name)
    for (const t of clash) expect(t.name).toMatch(/^a_b__x_[0-9a-f]{8}$/)
    expect(Naming.assign([server("s", "")], "onCollision")[0]!.name).toBe("tool")
  })

  it("prefixes every tool in `always` mode", () => {
    expect(names([server("a", "echo")], "always")).toEqual(["a:echo=a__echo"])
  })

  it("every name matches the provider pattern", () => {
    const servers = [server("ünïcode srv", "😀", "a".repeat(200), "ok-name_1"), server("b", "😀")]
    for (const t of Naming.assign(servers, "onCollision")) expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
  })
})
