import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as McpClient from "../../McpClient.js"
import * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as Skills from "../../Skills.js"
import { decodeResult, paginate } from "../engine/decode.js"
import { sha256Hex } from "../platform/webCrypto.js"
import * as Frontmatter from "./frontmatter.js"

/** @internal */
export const extensionId = "io.modelcontextprotocol/skills"

/** @internal */
export const SkillFile = Schema.Struct({
  uri: Schema.String,
  digest: Schema.String,
  size: Schema.Number.pipe(Schema.int(), Schema.nonNegative())
})

/** @internal */
export const Skill = Schema.Struct({
  uri: Schema.String,
  frontmatter: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  resources: Schema.Array(SkillFile)
})

/** @internal */
export const ListSkillsResult = Schema.Struct({
  skills: Schema.Array(Skill),
  nextCursor: Schema.optional(Schema.String)
})

/** @internal */
export class SkillVerificationError extends Schema.TaggedError<SkillVerificationError>(
  "@mcp-effect/core/SkillVerificationError"
)("SkillVerificationError", {
  skill: Schema.String,
  uri: Schema.String,
  reason: Schema.Literal("Unlisted", "Content", "Size", "Digest", "Frontmatter"),
  detail: Schema.String
}) {
  override get message(): string {
    return `skill ${this.skill}: ${this.uri} failed verification (${this.reason}): ${this.detail}`
  }
}

const decodeListSkills = decodeResult(ListSkillsResult)

const serverDeclares = (capabilities: McpSchema.ServerCapabilities): boolean => {
  const extensions = (capabilities as { readonly extensions?: unknown }).extensions
  return typeof extensions === "object" && extensions !== null && Object.hasOwn(extensions, extensionId)
}

const utf8 = new TextEncoder()

/** The bytes a `resources/read` content stands for: UTF-8 of `text`, or the decoded `blob`. */
const bytesOf = (content: McpSchema.ResourceContents): Either.Either<Uint8Array, string> =>
  "text" in content ?
    Either.right(utf8.encode(content.text)) :
    Either.mapLeft(Encoding.decodeBase64(content.blob), () => "the blob is not valid base64")

/** @internal */
export const make: Effect.Effect<Skills.Service, never, McpClient.McpClient> = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const session = client.session

  const requireExtension = Effect.flatMap(
    session.initialized,
    (init) =>
      serverDeclares(init.capabilities) ? Effect.void : Effect.fail(
        new McpError.UnsupportedCapability({ capability: `extensions.${extensionId}`, method: "skills/list" })
      )
  )

  const list = requireExtension.pipe(
    Effect.zipRight(paginate((cursor) => decodeListSkills(session, "skills/list", cursor), (page) => page.skills))
  )

  const get = (nameOrUri: string) =>
    Effect.map(
      list,
      (skills) => Option.fromNullable(skills.find((s) => s.uri === nameOrUri || s.frontmatter.name === nameOrUri))
    )

  const fail = (
    skill: Skills.Skill,
    uri: string,
    reason: SkillVerificationError["reason"],
    detail: string
  ) => Effect.fail(new SkillVerificationError({ skill: skill.uri, uri, reason, detail }))

  /** Reads one listed file and checks its size and digest; nothing else is read meanwhile. */
  const readFile = (skill: Skills.Skill, uri: string) =>
    Effect.gen(function*() {
      const listed = skill.resources.find((file) => file.uri === uri)
      if (listed === undefined) return yield* fail(skill, uri, "Unlisted", "the skill's entry does not list this file")
      const algorithm = /^sha256:([0-9a-fA-F]{64})$/.exec(listed.digest)
      if (algorithm === null) {
        return yield* fail(
          skill,
          uri,
          "Digest",
          `unsupported digest ${JSON.stringify(listed.digest)} (sha256:<hex> expected)`
        )
      }
      const result = yield* client.readResource(uri)
      const contents = result.contents.filter((c) => c.uri === uri)
      if (contents.length !== 1) {
        return yield* fail(skill, uri, "Content", `expected one content for the file, got ${contents.length}`)
      }
      const content = contents[0]
      const bytes = bytesOf(content)
      if (Either.isLeft(bytes)) return yield* fail(skill, uri, "Content", bytes.left)
      if (bytes.right.byteLength !== listed.size) {
        return yield* fail(skill, uri, "Size", `${bytes.right.byteLength} bytes, the entry says ${listed.size}`)
      }
      const actual = yield* sha256Hex(bytes.right)
      if (actual !== algorithm[1].toLowerCase()) {
        return yield* fail(skill, uri, "Digest", `sha256:${actual}, the entry says ${listed.digest}`)
      }
      return {
        uri,
        mimeType: content.mimeType,
        bytes: bytes.right,
        text: "text" in content ? content.text : undefined
      } satisfies Skills.SkillFileContent
    })

  const checkFrontmatter = (skill: Skills.Skill, file: Skills.SkillFileContent) => {
    const text = file.text ?? new TextDecoder("utf-8", { fatal: false }).decode(file.bytes)
    let parsed: Readonly<Record<string, Frontmatter.Value>> | undefined
    try {
      parsed = Frontmatter.parse(text)
    } catch (e) {
      return fail(skill, file.uri, "Frontmatter", e instanceof Frontmatter.FrontmatterError ? e.message : String(e))
    }
    if (parsed === undefined) return fail(skill, file.uri, "Frontmatter", "the file has no frontmatter")
    const keys = new Set([...Object.keys(parsed), ...Object.keys(skill.frontmatter)])
    for (const key of keys) {
      if (!Frontmatter.equal(parsed[key], skill.frontmatter[key])) {
        return fail(
          skill,
          file.uri,
          "Frontmatter",
          `field ${key}: the file says ${JSON.stringify(parsed[key])}, the entry ${
            JSON.stringify(skill.frontmatter[key])
          }`
        )
      }
    }
    return Effect.void
  }

  const load = (skill: Skills.Skill) =>
    Effect.gen(function*() {
      const instructions = yield* readFile(skill, skill.uri)
      yield* checkFrontmatter(skill, instructions)
      const files: Array<Skills.SkillFileContent> = [instructions]
      for (const file of skill.resources) {
        if (file.uri !== skill.uri) files.push(yield* readFile(skill, file.uri))
      }
      return { skill, instructions, files } satisfies Skills.LoadedSkill
    })

  return {
    list,
    get,
    load,
    readFile: (skill, uri) =>
      Effect.flatMap(
        readFile(skill, uri),
        (file) => uri === skill.uri ? Effect.as(checkFrontmatter(skill, file), file) : Effect.succeed(file)
      )
  } satisfies Skills.Service
})
