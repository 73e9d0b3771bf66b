/**
 * The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a server
 * lists skills (`skills/list`), each a `SKILL.md` plus supporting files
 * served as resources, with the `sha256` digest and byte size of every file
 * and the `SKILL.md` frontmatter in the listing.
 *
 * Listing reads no file. `load` reads a skill's files through
 * `resources/read` only then — `SKILL.md` first, then the others in the
 * listed order, one at a time — and checks each against the listing before
 * reading the next: byte size, `sha256:` digest, and for `SKILL.md` its YAML
 * frontmatter field by field (both ways: a field missing on either side is a
 * discrepancy). The first mismatch fails with `SkillVerificationError`, reads
 * nothing more and returns nothing. The frontmatter parser takes the YAML
 * subset skill files use (mappings, sequences, quoted and block scalars);
 * frontmatter outside it fails verification rather than being guessed at.
 *
 * `Skills.layer` needs an `McpClient`; provide `ClientExtensions.layer({
 * ...Skills.capability })` to that client so servers see the extension in
 * its capabilities. A server that does not declare the extension fails
 * `list` with `McpError.UnsupportedCapability`.
 *
 * @example
 * ```ts
 * import { ClientExtensions, McpClient, Skills } from "@mcp-effect/core"
 * import { HttpTransport } from "@mcp-effect/transport-http"
 * import { NodeHttpClient } from "@effect/platform-node"
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import * as Option from "effect/Option"
 *
 * const Client = McpClient.layer({ clientInfo: { name: "my-app", version: "1.0.0" } }).pipe(
 *   Layer.provide(ClientExtensions.layer({ ...Skills.capability })),
 *   Layer.provide(HttpTransport.layer({ url: "http://127.0.0.1:3000/mcp" })),
 *   Layer.provide(NodeHttpClient.layerUndici)
 * )
 *
 * const program = Effect.gen(function*() {
 *   const skills = yield* Skills.Skills
 *   const listed = yield* skills.list // no file is read yet
 *   const pdf = yield* skills.get("pdf-processing")
 *   if (Option.isSome(pdf)) {
 *     const loaded = yield* skills.load(pdf.value) // reads and verifies every file
 *     yield* Effect.log(listed.length, loaded.instructions.text)
 *   }
 * })
 *
 * // run it with `Effect.runPromise(main)`
 * export const main = Effect.provide(program, Skills.layer.pipe(Layer.provideMerge(Client)))
 * ```
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as internal from "./internal/extensions/skills.js"
import type * as McpClient from "./McpClient.js"
import type * as McpError from "./McpError.js"

/**
 * The extension's identifier.
 *
 * @since 0.2.0
 * @category constants
 */
export const extensionId: "io.modelcontextprotocol/skills" = internal.extensionId

/**
 * The client capability entry for the extension, to spread into
 * `ClientExtensions.layer`.
 *
 * @since 0.2.0
 * @category constants
 */
export const capability: { readonly "io.modelcontextprotocol/skills": {} } = { [internal.extensionId]: {} }

/**
 * A file of a skill as listed: its resource URI, `sha256:<hex>` digest and
 * size in bytes.
 *
 * @since 0.2.0
 * @category schemas
 */
export const SkillFile: typeof internal.SkillFile = internal.SkillFile

/**
 * @since 0.2.0
 * @category schemas
 */
export type SkillFile = typeof internal.SkillFile.Type

/**
 * A listed skill: the URI of its `SKILL.md`, that file's frontmatter (at
 * least `name` and `description`), and every file of the skill, `SKILL.md`
 * included.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Skill: typeof internal.Skill = internal.Skill

/**
 * @since 0.2.0
 * @category schemas
 */
export type Skill = typeof internal.Skill.Type

/**
 * A page of `skills/list`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ListSkillsResult: typeof internal.ListSkillsResult = internal.ListSkillsResult

/**
 * @since 0.2.0
 * @category schemas
 */
export type ListSkillsResult = typeof internal.ListSkillsResult.Type

/**
 * A file that failed verification against the listing: `Unlisted` (the
 * entry does not list it), `Content` (the read returned no single content
 * for it, or bad base64), `Size`, `Digest` (mismatch, or a digest that is
 * not `sha256:<hex>`), `Frontmatter` (the `SKILL.md` frontmatter differs from
 * the entry, is missing, or could not be parsed).
 *
 * @since 0.2.0
 * @category errors
 */
export const SkillVerificationError: typeof internal.SkillVerificationError = internal.SkillVerificationError

/**
 * @since 0.2.0
 * @category errors
 */
export type SkillVerificationError = internal.SkillVerificationError

/**
 * A verified file: its bytes, and its text when the server sent text.
 *
 * @since 0.2.0
 * @category models
 */
export interface SkillFileContent {
  readonly uri: string
  readonly mimeType: string | undefined
  readonly bytes: Uint8Array
  readonly text: string | undefined
}

/**
 * A loaded skill: every file verified; `instructions` is its `SKILL.md`
 * (also first in `files`).
 *
 * @since 0.2.0
 * @category models
 */
export interface LoadedSkill {
  readonly skill: Skill
  readonly instructions: SkillFileContent
  readonly files: ReadonlyArray<SkillFileContent>
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Every skill the server lists (all pages). Reads no file. */
  readonly list: Effect.Effect<ReadonlyArray<Skill>, McpError.McpClientError>
  /** The listed skill with this frontmatter `name` or `SKILL.md` URI. Reads no file. */
  readonly get: (nameOrUri: string) => Effect.Effect<Option.Option<Skill>, McpError.McpClientError>
  /** Reads and verifies every file of the skill, `SKILL.md` first, stopping at the first mismatch. */
  readonly load: (skill: Skill) => Effect.Effect<LoadedSkill, McpError.McpClientError | SkillVerificationError>
  /** Reads and verifies one listed file of the skill (its frontmatter too, for `SKILL.md`). */
  readonly readFile: (
    skill: Skill,
    uri: string
  ) => Effect.Effect<SkillFileContent, McpError.McpClientError | SkillVerificationError>
}

/**
 * @since 0.2.0
 * @category tags
 */
export class Skills extends Context.Tag("@mcp-effect/core/Skills")<Skills, Service>() {}

/**
 * @since 0.2.0
 * @category constructors
 */
export const make: Effect.Effect<Service, never, McpClient.McpClient> = internal.make

/**
 * @since 0.2.0
 * @category layers
 */
export const layer: Layer.Layer<Skills, never, McpClient.McpClient> = Layer.effect(Skills, internal.make)
