import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { createHash } from "node:crypto"
import * as ClientExtensions from "../src/ClientExtensions.js"
import * as Frontmatter from "../src/internal/extensions/frontmatter.js"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as Skills from "../src/Skills.js"
import * as TestServer from "../src/TestServer.js"
import { clientInfo, receivedWith } from "./utils.js"

const digest = (content: string | Uint8Array) => `sha256:${createHash("sha256").update(content).digest("hex")}`
const size = (content: string | Uint8Array) =>
  typeof content === "string" ? Buffer.byteLength(content) : content.byteLength

const skillMd = `---
name: pdf-processing
description: "Extract, fill: and assemble PDF documents" # quoted, with a colon
license: MIT
metadata:
  author: example
  version: 2
allowed-tools: [read, "write"]
---

# PDF processing
`
const frontmatter = {
  name: "pdf-processing",
  description: "Extract, fill: and assemble PDF documents",
  license: "MIT",
  metadata: { author: "example", version: 2 },
  "allowed-tools": ["read", "write"]
}
const forms = "Supporting content.\n"
const logo = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff])

const skillUri = "skill://pdf-processing/SKILL.md"
const formsUri = "skill://pdf-processing/references/FORMS.md"
const logoUri = "skill://pdf-processing/assets/logo.png"

interface Served {
  readonly skill?: string
  readonly forms?: string
}

const entry = (overrides: Partial<Skills.Skill> = {}): Skills.Skill => ({
  uri: skillUri,
  frontmatter,
  resources: [
    { uri: skillUri, digest: digest(skillMd), size: size(skillMd) },
    { uri: formsUri, digest: digest(forms), size: size(forms) },
    { uri: logoUri, digest: digest(logo), size: size(logo) }
  ],
  ...overrides
})

const other: Skills.Skill = {
  uri: "skill://csv/SKILL.md",
  frontmatter: { name: "csv", description: "CSV" },
  resources: []
}

/** A server declaring the extension, listing in two pages, serving the files (or tampered ones). */
const server = (listed: Skills.Skill, served: Served = {}, declare = true): TestServer.Options => ({
  capabilities: { resources: {}, ...(declare ? { extensions: { [Skills.extensionId]: {} } } : {}) },
  handlers: {
    "skills/list": ({ params }) =>
      Effect.succeed(params.cursor === "2" ? { skills: [other] } : { skills: [listed], nextCursor: "2" }),
    "resources/read": ({ params }) =>
      Effect.succeed({
        contents: [
          params.uri === logoUri ?
            { uri: logoUri, mimeType: "image/png", blob: Buffer.from(logo).toString("base64") } :
            {
              uri: params.uri,
              mimeType: "text/markdown",
              text: params.uri === formsUri ? (served.forms ?? forms) : (served.skill ?? skillMd)
            }
        ]
      })
  }
})

const withClient = (options: TestServer.Options) =>
  Layer.provideMerge(
    Skills.layer,
    McpClient.layer({ clientInfo, prefetch: false }).pipe(
      Layer.provideMerge(TestServer.layer(options)),
      Layer.provide(ClientExtensions.layer({ ...Skills.capability }))
    )
  )

const readUris = Effect.map(
  receivedWith("resources/read"),
  (requests) => requests.map((r) => (r.params as { uri: string }).uri)
)

const loadFailure = (served: Served, listed = entry()) =>
  Effect.gen(function*() {
    const skills = yield* Skills.Skills
    const error = yield* Effect.flip(skills.load(listed))
    return { error, reads: yield* readUris }
  }).pipe(Effect.provide(withClient(server(listed, served))))

describe("Skills", () => {
  it.effect("declares the extension, lists every page and reads no file", () =>
    Effect.gen(function*() {
      const skills = yield* Skills.Skills
      const listed = yield* skills.list
      expect(listed.map((s) => s.frontmatter.name)).toEqual(["pdf-processing", "csv"])
      expect(Option.map(yield* skills.get("csv"), (s) => s.uri)).toEqual(Option.some("skill://csv/SKILL.md"))
      expect(yield* skills.get("absent")).toEqual(Option.none())
      expect(yield* readUris).toEqual([])
      const [initialize] = yield* receivedWith("initialize")
      expect((initialize.params as any).capabilities.extensions).toEqual({ [Skills.extensionId]: {} })
    }).pipe(Effect.provide(withClient(server(entry())))))

  it.effect("loads a skill: SKILL.md first, then its files in order, each verified (text and blob)", () =>
    Effect.gen(function*() {
      const skills = yield* Skills.Skills
      const loaded = yield* skills.load(entry())
      expect(yield* readUris).toEqual([skillUri, formsUri, logoUri])
      expect(loaded.instructions.text).toBe(skillMd)
      expect(loaded.files.map((f) => f.uri)).toEqual([skillUri, formsUri, logoUri])
      expect(Array.from(loaded.files[2].bytes)).toEqual(Array.from(logo))
      expect(loaded.files[2].text).toBeUndefined()
      const single = yield* skills.readFile(entry(), formsUri)
      expect(single.text).toBe(forms)
    }).pipe(Effect.provide(withClient(server(entry())))))

  it.effect("a tampered SKILL.md of the same size fails with a Digest mismatch; nothing else is read", () =>
    Effect.gen(function*() {
      const { error, reads } = yield* loadFailure({ skill: skillMd.replace("# PDF", "# PWN") })
      expect(error).toBeInstanceOf(Skills.SkillVerificationError)
      expect(error).toMatchObject({ reason: "Digest", uri: skillUri, skill: skillUri })
      expect(reads).toEqual([skillUri])
    }))

  it.effect("a SKILL.md of another size fails with a Size mismatch", () =>
    Effect.gen(function*() {
      const { error, reads } = yield* loadFailure({ skill: `${skillMd}extra\n` })
      expect(error).toMatchObject({ _tag: "SkillVerificationError", reason: "Size" })
      expect(reads).toEqual([skillUri])
    }))

  it.effect("frontmatter that differs from the entry fails, even when digest and size match the file", () =>
    Effect.gen(function*() {
      const tampered = skillMd.replace("license: MIT", "license: GPL")
      const listed = entry({
        resources: [{ uri: skillUri, digest: digest(tampered), size: size(tampered) }, ...entry().resources.slice(1)]
      })
      const { error, reads } = yield* loadFailure({ skill: tampered }, listed)
      expect(error).toMatchObject({ _tag: "SkillVerificationError", reason: "Frontmatter" })
      expect(error.message).toContain("license")
      expect(reads).toEqual([skillUri])
    }))

  it.effect("a field the file has but the entry lacks is a discrepancy too", () =>
    Effect.gen(function*() {
      const { license: _, ...withoutLicense } = frontmatter
      const { error } = yield* loadFailure({}, entry({ frontmatter: withoutLicense }))
      expect(error).toMatchObject({ reason: "Frontmatter" })
    }))

  it.effect("a tampered supporting file fails after SKILL.md; the files after it are not read", () =>
    Effect.gen(function*() {
      const { error, reads } = yield* loadFailure({ forms: "Supporting content!\n" })
      expect(error).toMatchObject({ reason: "Digest", uri: formsUri })
      expect(reads).toEqual([skillUri, formsUri])
    }))

  it.effect("an unlisted file or a digest that is not sha256 is refused before any read", () =>
    Effect.gen(function*() {
      const skills = yield* Skills.Skills
      const unlisted = yield* Effect.flip(skills.readFile(entry(), "skill://pdf-processing/other.md"))
      expect(unlisted).toMatchObject({ reason: "Unlisted" })
      const md5 = entry({ resources: [{ uri: skillUri, digest: "md5:0123", size: size(skillMd) }] })
      expect(yield* Effect.flip(skills.load(md5))).toMatchObject({ reason: "Digest" })
      expect(yield* readUris).toEqual([])
    }).pipe(Effect.provide(withClient(server(entry())))))

  it.effect("a server that does not declare the extension fails list with UnsupportedCapability", () =>
    Effect.gen(function*() {
      const skills = yield* Skills.Skills
      const error = yield* Effect.flip(skills.list)
      expect(error).toBeInstanceOf(McpError.UnsupportedCapability)
      expect(yield* receivedWith("skills/list")).toEqual([])
    }).pipe(Effect.provide(withClient(server(entry(), {}, false)))))

  it.effect("a malformed listing is a DecodeError", () =>
    Effect.gen(function*() {
      const skills = yield* Skills.Skills
      const error = yield* Effect.flip(skills.list)
      expect(error).toMatchObject({ _tag: "DecodeError", reason: "Schema" })
    }).pipe(Effect.provide(withClient({
      capabilities: { extensions: { [Skills.extensionId]: {} } },
      handlers: { "skills/list": () => Effect.succeed({ skills: [{ uri: 1 }] }) }
    }))))
})

describe("SKILL.md frontmatter", () => {
  it("parses mappings, sequences, quoted and block scalars, comments", () => {
    const parsed = Frontmatter.parse(`---
name: x # comment
quoted: 'it''s'
escaped: "a\\tb\\u0041"
count: 3
ratio: 0.5
on: true
none: ~
list:
  - a
  - "b"
same-indent-list:
- c
literal: |
  line one
  line two
folded: >-
  folded
  text
empty:
---
body`)
    expect(parsed).toEqual({
      name: "x",
      quoted: "it's",
      escaped: "a\tbA",
      count: 3,
      ratio: 0.5,
      on: true,
      none: null,
      list: ["a", "b"],
      "same-indent-list": ["c"],
      literal: "line one\nline two\n",
      folded: "folded text",
      empty: null
    })
  })

  it("no frontmatter is undefined; YAML outside the subset is an error, never a guess", () => {
    expect(Frontmatter.parse("# just markdown\n")).toBeUndefined()
    for (
      const bad of [
        "---\nname: x\n",
        "---\nname: &anchor x\n---\n",
        "---\nmeta: {a: 1}\n---\n",
        "---\nname: x\nname: y\n---\n",
        "---\nlist:\n  - a: 1\n---\n",
        "---\njust text\n---\n"
      ]
    ) {
      expect(() => Frontmatter.parse(bad), bad).toThrow(Frontmatter.FrontmatterError)
    }
  })
})
