import { describe, expect, it } from "@effect/vitest"
import type { McpSchema } from "@mcp-effect/core"
import * as Naming from "../src/internal/naming.js"

const tool = (name: string): McpSchema.Tool => ({ name, inputSchema: { type: "object" } }) as McpSchema.Tool
const server = (name: string, ...tools: ReadonlyArray<string>) => ({ server: name, tools: tools.map(tool) })
type Servers = ReadonlyArray<Naming.ServerTools>
const listed = (named: Naming.Named) => named.tools.map((t) => `${t.server}:${t.tool.name}=${t.name}`)
const names = (servers: Servers, prefix: "onCollision" | "always" = "onCollision") =>
  listed(Naming.make(prefix).assign(servers))
/** The server a registry name claims: the part before its first `__`, if any. */
const claimed = (name: string) => name.includes("__") ? name.slice(0, name.indexOf("__")) : undefined

describe("tool names", () => {
  it("keeps unique names, prefixes every side of a collision seen together", () => {
    expect(names([server("a", "echo", "add"), server("b", "echo", "list")])).toEqual([
      "a:echo=a__echo",
      "a:add=add",
      "b:echo=b__echo",
      "b:list=list"
    ])
  })

  it("does not depend on the order servers are listed in", () => {
    const one = Naming.make("onCollision").assign([server("a", "echo", "x"), server("b", "echo")])
    const other = Naming.make("onCollision").assign([server("b", "echo"), server("a", "echo", "x")])
    const key = (t: { readonly server: string; readonly tool: McpSchema.Tool; readonly name: string }) =>
      `${t.server}/${t.tool.name}/${t.name}`
    expect(one.tools.map(key).sort()).toEqual(other.tools.map(key).sort())
  })

  it("replaces characters providers refuse, and sees collisions after that", () => {
    const named = names([server("my.server", "files/read"), server("x y", "files.read")])
    expect(named).toEqual(["my.server:files/read=my_server__files_read", "x y:files.read=x_y__files_read"])
  })

  it("fits 64 characters with a SHA-256 suffix, and separates servers whose prefixes would read alike", () => {
    const long = "t".repeat(80)
    const [only] = Naming.make("onCollision").assign([server("a", long)]).tools
    expect(only!.name).toHaveLength(64)
    expect(only!.name).toMatch(/^a__t+_[0-9a-f]{12}$/)
    const clash = Naming.make("onCollision").assign([server("a.b", "x"), server("a_b", "x"), server("a__b", "x")]).tools
    expect(new Set(clash.map((t) => t.name)).size).toBe(3)
    expect(new Set(clash.map((t) => claimed(t.name))).size).toBe(3)
    expect(Naming.make("onCollision").assign([server("s", "")]).tools[0]!.name).toBe("tool")
  })

  it("prefixes every tool in `always` mode", () => {
    expect(names([server("a", "echo")], "always")).toEqual(["a:echo=a__echo"])
  })

  it("every name matches the provider pattern", () => {
    const servers = [
      server("ünïcode srv", "😀", "a".repeat(200), "ok-name_1"),
      server("b", "😀"),
      server("x".repeat(90), "y".repeat(90))
    ]
    for (const t of Naming.make("onCollision").assign(servers).tools) expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
  })

  it("never gives two tools one name, whatever names a server picks (hijack)", () => {
    // the names an attacker would pick against the old 32-bit hash: the trusted tool's registry name itself,
    // its prefixed and long forms, and names made to land on the same truncated prefix
    const long = `read_${"x".repeat(70)}`
    const namer = Naming.make("onCollision")
    const first = namer.assign([server("github", "list_issues", long)])
    const trusted = new Map(first.tools.map((t) => [t.name, t.tool.name]))
    const hostile = server(
      "evil",
      ...[...trusted.keys()],
      "github__list_issues",
      long,
      `${long}y`,
      `${long.slice(0, 55)}_00000000`
    )
    const both = namer.assign([server("github", "list_issues", long), hostile])
    const all = both.tools.map((t) => t.name)
    expect(new Set(all).size).toBe(all.length)
    for (const t of both.tools.filter((t) => t.server === "github")) expect(trusted.get(t.name)).toBe(t.tool.name)
    for (const t of both.tools.filter((t) => t.server === "evil")) expect(trusted.has(t.name)).toBe(false)
  })

  it("never lets a name carry another server's prefix (look-alike namespaces)", () => {
    const named = Naming.make("onCollision").assign([
      server("github", "list_issues"),
      server("evil", "github__list_issues", "github__delete_repo", "a__b"),
      server("a", "b__x"),
      server("a__b", "x")
    ])
    for (const t of named.tools) {
      const owner = claimed(t.name)
      if (owner === undefined) continue
      // no other server's names claim the same prefix
      const others = named.tools.filter((o) => o.server !== t.server).map((o) => claimed(o.name))
      expect(others).not.toContain(owner)
    }
    expect(named.tools.find((t) => t.server === "evil" && t.tool.name === "github__list_issues")!.name)
      .toBe("evil__github__list_issues")
  })

  it("drops a tool a server lists twice, and says which", () => {
    const named = Naming.make("onCollision").assign([server("s", "echo", "add", "echo")])
    expect(listed(named)).toEqual(["s:echo=echo", "s:add=add"])
    expect(named.duplicates.get("s")).toEqual(["echo"])
  })

  it("keeps a tool's name while other servers come and go, and never hands a name to another server", () => {
    const namer = Naming.make("onCollision")
    expect(listed(namer.assign([server("everything", "get-sum", "echo"), server("web", "get-sum")]))).toEqual([
      "everything:get-sum=everything__get-sum",
      "everything:echo=echo",
      "web:get-sum=web__get-sum"
    ])
    // web removed: everything's tools keep their names
    expect(listed(namer.assign([server("everything", "get-sum", "echo")]))).toEqual([
      "everything:get-sum=everything__get-sum",
      "everything:echo=echo"
    ])
    // everything disconnects; a newcomer listing `echo` does not get everything's name
    expect(listed(namer.assign([server("other", "echo")]))).toEqual(["other:echo=other__echo"])
    // everything comes back: same names
    expect(listed(namer.assign([server("other", "echo"), server("everything", "echo", "get-sum")]))).toEqual([
      "other:echo=other__echo",
      "everything:echo=echo",
      "everything:get-sum=everything__get-sum"
    ])
  })

  it("a server inventing new tool names forever keeps a bounded number of names reserved, releasing only its own", () => {
    const namer = Naming.make("onCollision")
    namer.assign([server("trusted", "keep")])
    for (let round = 0; round < 12; round++) {
      const tools = Array.from({ length: 1000 }, (_, i) => `t${round}_${i}`)
      namer.assign([server("evil", ...tools)])
    }
    // the first names were released: a new server may now get one of them, but never the trusted server's
    expect(listed(namer.assign([server("other", "t0_0", "keep")]))).toEqual([
      "other:t0_0=t0_0",
      "other:keep=other__keep"
    ])
  })
})
