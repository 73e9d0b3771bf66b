import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Elicitation from "../src/Elicitation.js"
import * as JsonSchemaValidator from "../src/JsonSchemaValidator.js"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as TestServer from "../src/TestServer.js"
import { clientInfo, clientLayer, receivedWith, textResult } from "./utils.js"

// server-everything's get-structured-content tool, as its SDK lists it
const weatherSchema = {
  type: "object",
  properties: {
    temperature: { type: "number", description: "Temperature in celsius" },
    conditions: { type: "string", description: "Weather conditions description" },
    humidity: { type: "number", description: "Humidity percentage" }
  },
  required: ["temperature", "conditions", "humidity"],
  additionalProperties: false,
  $schema: "http://json-schema.org/draft-07/schema#"
}

const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child)
    Object.freeze(value)
  }
  return value
}

const validate = (schema: JsonSchemaValidator.JsonSchema, value: unknown) =>
  Effect.flip(JsonSchemaValidator.cfworker.validate(schema, value))

describe("JsonSchemaValidator (cfworker)", () => {
  it.effect("accepts a matching value and lists every issue of a mismatch with its location", () =>
    Effect.gen(function*() {
      yield* JsonSchemaValidator.cfworker.validate(weatherSchema, {
        temperature: 33,
        conditions: "Cloudy",
        humidity: 82
      })
      const error = yield* validate(weatherSchema, { temperature: "hot", conditions: "Cloudy", extra: 1 })
      expect(error.reason).toBe("Mismatch")
      const locations = error.issues.map((i) => i.instanceLocation)
      expect(locations).toContain("/temperature")
      expect(error.issues.some((i) => i.keywordLocation.endsWith("/required"))).toBe(true)
      expect(error.message).toContain("/temperature")
    }))

  it.effect("follows $ref into $defs (2020-12 is the default dialect) and honours $schema", () =>
    Effect.gen(function*() {
      const schema = {
        type: "object",
        $defs: { point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
        properties: {
          at: { $ref: "#/$defs/point" },
          path: { type: "array", prefixItems: [{ type: "string" }], items: false }
        }
      }
      yield* JsonSchemaValidator.cfworker.validate(schema, { at: { x: 1 }, path: ["a"] })
      expect((yield* validate(schema, { at: { x: "1" } })).issues.map((i) => i.instanceLocation)).toContain("/at/x")
      // prefixItems + items: false is a 2020-12 tuple: a second item is refused
      expect((yield* validate(schema, { at: { x: 1 }, path: ["a", "b"] })).reason).toBe("Mismatch")
      // draft-07: array-form `items` is the tuple
      const draft7 = {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "array",
        items: [{ type: "number" }],
        additionalItems: false
      }
      yield* JsonSchemaValidator.cfworker.validate(draft7, [1])
      expect((yield* validate(draft7, [1, 2])).reason).toBe("Mismatch")
    }))

  it.effect("a schema it cannot use is InvalidSchema, not a defect", () =>
    Effect.gen(function*() {
      const error = yield* validate({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } }, { a: 1 })
      expect(error.reason).toBe("InvalidSchema")
      expect(error.message).toContain("$defs/missing")
    }))

  it.effect("leaves the schema untouched: no hidden properties, frozen schemas work", () =>
    Effect.gen(function*() {
      const schema = { type: "object", $defs: { n: { type: "number" } }, properties: { a: { $ref: "#/$defs/n" } } }
      yield* JsonSchemaValidator.cfworker.validate(schema, { a: 1 })
      expect(Object.getOwnPropertyNames(schema)).toEqual(["type", "$defs", "properties"])
      expect(Object.getOwnPropertyNames(schema.properties.a)).toEqual(["$ref"])
      const frozen = deepFreeze({
        type: "object",
        properties: { a: { $ref: "#/properties/b" }, b: { type: "string" } }
      })
      expect((yield* validate(frozen, { a: 1 })).reason).toBe("Mismatch")
    }))

  it.effect("compiles each schema object once", () =>
    Effect.gen(function*() {
      let compiled = 0
      const cfworker = yield* Effect.promise(JsonSchemaValidator.loadCfworkerCompiler)
      const validator = JsonSchemaValidator.make((schema) => {
        compiled++
        return cfworker(schema)
      })
      for (let i = 0; i < 3; i++) {
        yield* validator.validate(weatherSchema, { temperature: i, conditions: "", humidity: 0 })
      }
      yield* Effect.flip(validator.validate(weatherSchema, {}))
      expect(compiled).toBe(1)
      yield* validator.validate({ ...weatherSchema }, { temperature: 1, conditions: "", humidity: 0 })
      expect(compiled).toBe(2)
    }))
})

describe("JsonSchemaValidator.makeLazy (how the default loads @cfworker/json-schema)", () => {
  const requiredOnly: JsonSchemaValidator.Compiler = () => (value) =>
    typeof value === "object" && value !== null && "id" in value ?
      [] :
      [{ instanceLocation: "", keywordLocation: "/required", message: "missing id" }]

  it.effect("loads the compiler on the first check only, then checks as make does", () =>
    Effect.gen(function*() {
      let loads = 0
      const validator = JsonSchemaValidator.makeLazy(() => {
        loads++
        return Promise.resolve(requiredOnly)
      })
      expect(loads).toBe(0)
      yield* validator.validate({}, { id: 1 })
      yield* validator.validate({}, { id: 2 })
      const error = yield* Effect.flip(validator.validate({}, {}))
      expect(error.reason).toBe("Mismatch")
      expect(loads).toBe(1)
    }))

  it.effect("a failed load is Unavailable for that check, and the next check loads again", () =>
    Effect.gen(function*() {
      let loads = 0
      const validator = JsonSchemaValidator.makeLazy(() =>
        ++loads === 1 ? Promise.reject(new Error("chunk fetch failed")) : Promise.resolve(requiredOnly)
      )
      const error = yield* Effect.flip(validator.validate({}, { id: 1 }))
      expect(error).toBeInstanceOf(JsonSchemaValidator.ValidationError)
      expect(error.reason).toBe("Unavailable")
      expect(error.message).toBe("the validator could not be loaded; #: chunk fetch failed")
      yield* validator.validate({}, { id: 1 })
      expect(loads).toBe(2)
    }))
})

const weatherServer = (structuredContent: unknown, extra: Record<string, unknown> = {}): TestServer.Options => ({
  handlers: {
    "tools/list": () =>
      Effect.succeed({
        tools: [
          { name: "weather", inputSchema: { type: "object" }, outputSchema: weatherSchema },
          { name: "plain", inputSchema: { type: "object" } }
        ]
      }),
    "tools/call": ({ params }) =>
      Effect.succeed(
        params.name === "plain" ?
          { ...textResult("ok"), structuredContent: { anything: true } } :
          { ...textResult("weather"), ...(structuredContent === undefined ? {} : { structuredContent }), ...extra }
      )
  }
})

describe("McpClient: structuredContent is checked against the tool's outputSchema", () => {
  const good = { temperature: 33, conditions: "Cloudy", humidity: 82 }

  it.effect("a matching result passes; the tool list is fetched first when the tool is not known yet", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "weather" })
      expect(result.structuredContent).toEqual(good)
      expect(yield* receivedWith("tools/list")).toHaveLength(1)
      // tools without an outputSchema are not checked
      expect((yield* client.callTool({ name: "plain" })).structuredContent).toEqual({ anything: true })
    }).pipe(Effect.provide(clientLayer(weatherServer(good)))))

  it.effect("a mismatching result is a DecodeError with reason OutputSchema", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.callTool({ name: "weather" }))
      expect(error).toBeInstanceOf(McpError.DecodeError)
      expect(error).toMatchObject({ _tag: "DecodeError", reason: "OutputSchema", method: "tools/call" })
      expect(error.message).toContain("/temperature")
      // the same through the stream
      const streamed = yield* Effect.flip(Stream.runCollect(client.callToolStream({ name: "weather" })))
      expect(streamed).toMatchObject({ _tag: "DecodeError", reason: "OutputSchema" })
    }).pipe(Effect.provide(clientLayer(weatherServer({ ...good, temperature: "hot" })))))

  it.effect("a result without structuredContent for a tool with an outputSchema is an error", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.callTool({ name: "weather" }))
      expect(error).toMatchObject({ _tag: "DecodeError", reason: "OutputSchema" })
      expect(error.message).toContain("no structuredContent")
    }).pipe(Effect.provide(clientLayer(weatherServer(undefined)))))

  it.effect("a tool failure (isError) is returned as it is", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "weather" })
      expect(result.isError).toBe(true)
    }).pipe(Effect.provide(clientLayer(weatherServer(undefined, { isError: true })))))

  it.effect("the validator in the context is the one used", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.callTool({ name: "weather" }))
      expect(error.message).toContain("nothing passes")
      const events = yield* Stream.runCollect(client.callToolStream({ name: "plain" }))
      expect(Chunk.toReadonlyArray(events).map((e) => e._tag)).toEqual(["Result"])
    }).pipe(Effect.provide(
      McpClient.layer({ clientInfo, prefetch: false }).pipe(
        Layer.provideMerge(TestServer.layer(weatherServer(good))),
        Layer.provide(JsonSchemaValidator.layerCompiler(() => () => [
          { instanceLocation: "", keywordLocation: "", message: "nothing passes" }
        ]))
      )
    )))
})

describe("McpClient: elicitation answers are checked against requestedSchema before they are sent", () => {
  const requestedSchema = {
    type: "object",
    properties: { name: { type: "string", minLength: 2 }, age: { type: "integer", minimum: 0 } },
    required: ["name"]
  }
  const ask = Effect.flatMap(TestServer.TestServer, (server) =>
    Effect.zipRight(
      Effect.flatMap(McpClient.McpClient, (client) => client.initialized),
      server.request("elicitation/create", { mode: "form", message: "Who are you?", requestedSchema })
    ))
  const answering = (content: Record<string, string | number>, action: "accept" | "decline" = "accept") =>
    McpClient.layer({ clientInfo, prefetch: false }).pipe(
      Layer.provideMerge(TestServer.layer({})),
      Layer.provide(Elicitation.layer(() => Effect.succeed({ action, content })))
    )

  it.effect("a valid answer is sent", () =>
    Effect.gen(function*() {
      const response = yield* ask
      expect(response).toMatchObject({ result: { action: "accept", content: { name: "Ada", age: 36 } } })
    }).pipe(Effect.provide(answering({ name: "Ada", age: 36 }))))

  it.effect("an invalid answer is not sent: the server gets -32603", () =>
    Effect.gen(function*() {
      const response = yield* ask
      expect(response).toMatchObject({ error: { code: McpError.ErrorCode.InternalError } })
      expect("result" in response).toBe(false)
    }).pipe(Effect.provide(answering({ name: "A", age: -1 }))))

  it.effect("a declined answer is not checked", () =>
    Effect.gen(function*() {
      const response = yield* ask
      expect(response).toMatchObject({ result: { action: "decline" } })
    }).pipe(Effect.provide(answering({}, "decline"))))
})
