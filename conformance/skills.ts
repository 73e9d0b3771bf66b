/**
 * The skills extension scenarios (SEP-2640, `io.modelcontextprotocol/skills`)
 * and the JSON Schema scenarios (SEP-1613, SEP-2106), through `Skills` and
 * `McpClient` as an app uses them.
 *
 * - `sep-2640-client-no-prefetch`: the app lists the skills and loads none;
 *   no skill file may be read.
 * - `sep-2640-client-verify-*`: the app loads the listed skill, whose
 *   `SKILL.md` the server tampered with (digest, size, frontmatter); loading
 *   must fail with that `SkillVerificationError` before any other file is read.
 * - `json-schema-ref-no-deref`: listing a tool whose input schema has a
 *   network `$ref` fetches nothing.
 * - `json-schema-2020-12-preservation`: the listed input schema is sent back
 *   unchanged through the echo tool; the runner compares it to the original.
 */
import { ClientExtensions, McpClient, Skills } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Scenario, ScenarioTable } from "./scenario.js"
import { callListedTool, ScenarioFailed } from "./scenario.js"

const declareSkills = () => ClientExtensions.layer({ ...Skills.capability })

const listOnly: Scenario = {
  services: declareSkills,
  program: Effect.gen(function*() {
    const skills = yield* Skills.make
    const listed = yield* skills.list
    return `listed ${listed.map((s) => s.frontmatter.name ?? s.uri).join(", ")}; loaded none`
  })
}

/** Loads the listed `pdf-processing` skill, expecting verification to fail for `reason`. */
const loadRejected = (reason: Skills.SkillVerificationError["reason"]): Scenario => ({
  services: declareSkills,
  program: Effect.gen(function*() {
    const skills = yield* Skills.make
    const skill = yield* skills.get("pdf-processing")
    if (Option.isNone(skill)) return yield* new ScenarioFailed({ message: "skill pdf-processing not listed" })
    return yield* skills.load(skill.value).pipe(
      Effect.matchEffect({
        onSuccess: () => new ScenarioFailed({ message: `the tampered skill loaded (expected a ${reason} mismatch)` }),
        onFailure: (error) =>
          error._tag === "SkillVerificationError" && error.reason === reason ?
            Effect.succeed(`refused as expected: ${error.message}`) :
            new ScenarioFailed({ message: `expected a ${reason} mismatch, got ${error._tag}: ${error.message}` })
      })
    )
  })
})

const echoTool = "json_schema_echo"
const focalTool = "json_schema_2020_12_tool"

export const scenarios: ScenarioTable = {
  "sep-2640-client-no-prefetch": listOnly,
  "sep-2640-client-verify-digest": loadRejected("Digest"),
  "sep-2640-client-verify-size": loadRejected("Size"),
  "sep-2640-client-verify-frontmatter": loadRejected("Frontmatter"),
  "json-schema-ref-no-deref": {
    program: Effect.gen(function*() {
      const tools = yield* (yield* McpClient.McpClient).listTools
      return `listed ${tools.map((t) => t.name).join(", ")}`
    })
  },
  "json-schema-2020-12-preservation": {
    program: Effect.gen(function*() {
      const tools = yield* (yield* McpClient.McpClient).listTools
      const focal = tools.find((t) => t.name === focalTool)
      if (focal === undefined) return yield* new ScenarioFailed({ message: `tool ${focalTool} not listed` })
      return yield* callListedTool(echoTool, { schema: focal.inputSchema })
    })
  }
}
