import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as JsonSchemaValidator from "../../JsonSchemaValidator.js"
import * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"

/**
 * The validator in the context, or the default one.
 *
 * @internal
 */
export const validatorFromContext: Effect.Effect<JsonSchemaValidator.Service> = Effect.map(
  Effect.serviceOption(JsonSchemaValidator.JsonSchemaValidator),
  Option.getOrElse(() => JsonSchemaValidator.cfworker)
)

/**
 * A result of a tool with an `outputSchema` must carry `structuredContent`
 * matching it (unless it reports a tool failure, `isError: true`); otherwise
 * the call fails with `DecodeError { reason: "OutputSchema" }`. The tool is
 * the one from the client's list: a call of a tool the client did not know
 * has just fetched the list.
 *
 * @internal
 */
export const checkStructuredContent = (
  validator: JsonSchemaValidator.Service,
  tool: McpSchema.Tool | undefined,
  result: McpSchema.CallToolResult
): Effect.Effect<McpSchema.CallToolResult, McpError.DecodeError> => {
  if (tool?.outputSchema === undefined || result.isError === true) return Effect.succeed(result)
  const invalid = (message: string) =>
    new McpError.DecodeError({ reason: "OutputSchema", method: "tools/call", message: `tool ${tool.name}: ${message}` })
  if (result.structuredContent === undefined) {
    return Effect.fail(invalid("the tool declares an outputSchema, but the result has no structuredContent"))
  }
  return validator.validate(tool.outputSchema, result.structuredContent).pipe(
    Effect.mapError((error) => invalid(`structuredContent does not match the outputSchema: ${error.message}`)),
    Effect.as(result)
  )
}

/**
 * Checks an accepted form's content against the form's `requestedSchema`
 * before it is sent. A mismatch is logged for the app (a warning with the
 * issues) and answered to the server with `-32603`: the client failed to
 * produce a valid answer. Declined and cancelled answers, and URL mode, pass.
 *
 * @internal
 */
export const checkElicitResult = (
  validator: JsonSchemaValidator.Service,
  params: McpSchema.ElicitRequestParams,
  result: McpSchema.ElicitResult
): Effect.Effect<McpSchema.ElicitResult, McpError.ProtocolError> =>
  params.mode === "url" || result.action !== "accept" ?
    Effect.succeed(result) :
    validator.validate(params.requestedSchema, result.content ?? {}).pipe(
      Effect.as(result),
      Effect.catchAll((error) =>
        Effect.logWarning("mcp: the elicitation answer does not match the requested schema; not sent", error.message)
          .pipe(
            Effect.zipRight(Effect.fail(
              new McpError.ProtocolError({
                code: McpError.ErrorCode.InternalError,
                method: "elicitation/create",
                message: "the client's answer does not match the requested schema"
              })
            ))
          )
      )
    )
