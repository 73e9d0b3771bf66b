import { McpClient, McpError, TestServer } from "@mcp-effect/core"
import type { McpSchema } from "@mcp-effect/core"
import { cleanup, render, screen, waitFor } from "@testing-library/react"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterEach, describe, expect, it } from "vitest"
import { RuntimeProvider, Tasks } from "../src/index.js"

afterEach(cleanup)

/** A server that runs task `t1` (until the test completes it) and knows no other task. */
const makeApp = () => {
  const state = { status: "working" as McpSchema.TaskStatus, received: [] as Array<string> }
  const task = (): McpSchema.Task => ({
    taskId: "t1",
    status: state.status,
    createdAt: "2026-11-27T00:00:00Z",
    lastUpdatedAt: "2026-11-27T00:00:00Z",
    ttl: null,
    pollInterval: 50
  })
  const known = (params: Record<string, unknown>, method: string) => {
    state.received.push(method)
    return params.taskId === "t1" ?
      Effect.void :
      Effect.fail(new McpError.ProtocolError({ code: McpError.ErrorCode.InvalidParams, message: "no such task" }))
  }
  const server = TestServer.layer({
    capabilities: { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } },
    handlers: {
      "tools/list": () => Effect.succeed({ tools: [] }),
      "tasks/get": ({ params }) => Effect.map(known(params, "tasks/get"), task),
      "tasks/result": ({ params }) =>
        Effect.as(known(params, "tasks/result"), { content: [{ type: "text", text: "the report" }] }),
      "tasks/cancel": ({ params }) => Effect.map(known(params, "tasks/cancel"), task)
    }
  })
  const layer = Layer.provideMerge(McpClient.layer({ clientInfo: { name: "react-test", version: "1.0.0" } }), server)
  return { layer, state }
}

const Reattached = ({ taskId }: { taskId: string }) => {
  const view = Tasks.useResumedTask(taskId)
  const text = view.result?.content.map((block) => block.type === "text" ? block.text : "").join("")
  return (
    <div>
      <p data-testid="status">{view.task?.status ?? "-"}</p>
      <p data-testid="result">{text ?? "-"}</p>
      <p data-testid="error">{view.error?._tag ?? "-"}</p>
    </div>
  )
}

describe("Tasks.useResumedTask", () => {
  it("reattaches to a running task by id after a reload, and shows its result", async () => {
    const app = makeApp()
    const first = render(
      <RuntimeProvider.Provider layer={app.layer}>
        <Reattached taskId="t1" />
      </RuntimeProvider.Provider>
    )
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("working"))
    // the page reloads: following stops, the task runs on (no tasks/cancel)
    first.unmount()
    expect(app.state.received).not.toContain("tasks/cancel")
    render(
      <RuntimeProvider.Provider layer={app.layer}>
        <Reattached taskId="t1" />
      </RuntimeProvider.Provider>
    )
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("working"))
    app.state.status = "completed"
    await waitFor(() => expect(screen.getByTestId("result").textContent).toBe("the report"))
    expect(screen.getByTestId("status").textContent).toBe("completed")
    expect(app.state.received).not.toContain("tasks/cancel")
  })

  it("a task id the server does not know shows TaskNotFound", async () => {
    const app = makeApp()
    render(
      <RuntimeProvider.Provider layer={app.layer}>
        <Reattached taskId="gone" />
      </RuntimeProvider.Provider>
    )
    await waitFor(() => expect(screen.getByTestId("error").textContent).toBe("TaskNotFound"))
  })
})
