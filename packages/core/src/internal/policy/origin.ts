// Who made a tool call, apart from the call log, so that reading it (the client does, for the approval
// request) does not bring the log's record schemas into a bundle.
import * as FiberRef from "effect/FiberRef"
import * as Schema from "effect/Schema"

/** @internal */
export const Origin = /* @__PURE__ */ Schema.Struct({
  _tag: Schema.Literal("App"),
  /** The `ui://` resource of the app that made the call. */
  uri: Schema.String
})

/** @internal */
export const currentOrigin = /* @__PURE__ */ FiberRef.unsafeMake<typeof Origin.Type | undefined>(undefined)
