import { OAuth } from "@mcp-effect/react"
import * as React from "react"
import { createRoot } from "react-dom/client"
import { App } from "./App.js"
import { callbackPath } from "./hub.js"
import "./styles.css"

/** The popup's page: hands code and state to the console's window and closes. */
const Callback = () => {
  const state = OAuth.useOAuthCallback()
  return (
    <p>
      {state._tag === "Pending"
        ? "Completing authorization…"
        : state.error === undefined
        ? "Authorization complete."
        : `Authorization failed: ${state.error}`}
    </p>
  )
}

createRoot(document.getElementById("root")!).render(
  <React.StrictMode>{window.location.pathname === callbackPath ? <Callback /> : <App />}</React.StrictMode>
)
