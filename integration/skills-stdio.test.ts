// The skills extension (SEP-2640) against a real stdio process: a fixture server built with
// the official SDK that lists skills in two pages, serves their files as resources, and
// records every resources/read it gets.
import { describe, expect, it } from "@effect/vitest"
import { ClientExtensions, McpClient, McpError, Skills } from "@mcp-effect/core"
import { NodeStdioTransport } from "@mcp-effect/transport-stdio"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const fixture = fileURLToPath(new URL("../test-fixtures/skills-server.mjs", import.meta.url))

const skillsOver = (env: Record<string, string>) => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "mcp-skills-")), "log.ndjson")
  const log = (): Array<{ read?: string; capabilities?: any }> =>
    existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []
  const reads = () => log().flatMap((entry) => entry.read === undefined ? [] : [entry.read])
  const client = McpClient.layer({ clientInfo: { name: "skills-test", version: "1.0.0" } }).pipe(
    Layer.provide(ClientExtensions.layer({ ...Skills.capability })),
    Layer.provide(NodeStdioTransport.layer({
      command: process.execPath,
      args: [fixture],
      env: { ...env, RECORD_FILE: file }
    }))
  )
  return { layer: Skills.layer.pipe(Layer.provideMerge(client)), reads, log }
}

const pdf = Effect.flatMap(
  Skills.Skills,
  (skills) =>
    Effect.flatMap(skills.get("pdf-processing"), (found) =>
      Option.match(found, {
        onNone: () => Effect.dieMessage("pdf-processing not listed"),
        onSome: Effect.succeed
      }))
)

describe("Skills over stdio (official SDK server)", () => {
  it.effect("lists both pages and declares the extension without reading a file; load reads and verifies each", () => {
    const server = skillsOver({})
    return Effect.gen(function*() {
      const skills = yield* Skills.Skills
      expect((yield* skills.list).map((s) => s.frontmatter.name)).toEqual(["pdf-processing", "notes"])
      const skill = yield* pdf
      expect(server.reads()).toEqual([])
      expect(server.log().find((e) => e.capabilities)?.capabilities.extensions).toEqual({ [Skills.extensionId]: {} })

      const loaded = yield* skills.load(skill)
      expect(server.reads()).toEqual(skill.resources.map((r) => r.uri))
      expect(loaded.instructions.text).toContain("# PDF processing")
      expect(Array.from(loaded.files[2].bytes)).toEqual([0, 1, 2, 254, 255])
    }).pipe(Effect.provide(server.layer))
  })

  for (const [tamper, reason] of [["digest", "Digest"], ["size", "Size"], ["frontmatter", "Frontmatter"]] as const) {
    it.effect(`a SKILL.md failing the ${tamper} check is refused, and no other file is read`, () => {
      const server = skillsOver({ SKILLS_TAMPER: tamper })
      return Effect.gen(function*() {
        const skills = yield* Skills.Skills
        const error = yield* Effect.flip(skills.load(yield* pdf))
        expect(error).toBeInstanceOf(Skills.SkillVerificationError)
        expect(error).toMatchObject({ reason, uri: "skill://pdf-processing/SKILL.md" })
        expect(server.reads()).toEqual(["skill://pdf-processing/SKILL.md"])
      }).pipe(Effect.provide(server.layer))
    })
  }

  it.effect("a server without the extension: list fails with UnsupportedCapability", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip((yield* Skills.Skills).list)
      expect(error).toBeInstanceOf(McpError.UnsupportedCapability)
    }).pipe(Effect.provide(skillsOver({ SKILLS_UNDECLARED: "1" }).layer)))
})
