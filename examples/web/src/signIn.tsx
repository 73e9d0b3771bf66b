/**
 * The popup sign-ins in progress, in words, with what the user can do:
 * "Cancel sign-in" (the connection then says the sign-in was cancelled) and,
 * once the window reads as closed, "Reopen sign-in window". A window whose
 * sign-in page sends Cross-Origin-Opener-Policy also reads as closed while
 * the user is still signing in there, so a closed window does not end the
 * sign-in by itself: finishing in that window still connects.
 */
import type { BrowserAuthorizer } from "@mcp-effect/oauth"
import { OAuth } from "@mcp-effect/react"
import * as React from "react"

/**
 * Whether a sign-in of this runtime is in progress (for `resource` when
 * given): the status then says "Signing in" rather than "Connecting".
 */
export const useSigningIn = (resource?: string | undefined): boolean =>
  OAuth.useSignIns().signIns.some((signIn) => resource === undefined || signIn.resource === resource)

const where = (signIn: BrowserAuthorizer.SignIn) =>
  `${new URL(signIn.origin).host}${signIn.resource === undefined ? "" : ` for ${signIn.resource}`}`

export const SignInNotice = () => {
  const { cancel, reopen, signIns } = OAuth.useSignIns()
  const [error, setError] = React.useState<string | undefined>(undefined)
  if (signIns.length === 0) return null
  return (
    <div className="sign-ins" role="status" data-testid="sign-ins">
      {signIns.map((signIn) => (
        <div key={signIn.id} className="sign-in" data-testid="sign-in" data-status={signIn.status}>
          {signIn.status === "Open" ?
            <p>Signing in at {where(signIn)}: finish in the sign-in window.</p> :
            (
              <p>
                The sign-in window was closed before the sign-in finished (or the sign-in page cut its link to this
                page: if it is still open, finish there). Reopen it to sign in, or cancel.
              </p>
            )}
          <div className="actions">
            {signIn.status === "MaybeClosed" && (
              <button
                onClick={() => {
                  setError(undefined)
                  reopen(signIn.id).catch(() =>
                    setError("The browser blocked the sign-in window. Allow popups for this page.")
                  )
                }}
              >
                Reopen sign-in window
              </button>
            )}
            <button
              onClick={() =>
                cancel(signIn.id)}
            >
              Cancel sign-in
            </button>
          </div>
        </div>
      ))}
      {error !== undefined && <p className="error" role="alert">{error}</p>}
    </div>
  )
}
