/**
 * `useToolSearch`: search the tools of every server of the provider's
 * `ServerRegistry` and follow one conversation's activated tools (see the
 * hub's `ToolSearch`). The provider's Layer must hold the registry and a
 * `KeyValueStore` (`BrowserHub.layer` and `NodeHub.layer` provide both);
 * activated tools are kept there, so a reload continues with them.
 *
 * @since 0.4.0
 */
import * as ToolSearch from "@mcp-effect/hub/ToolSearch"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as React from "react"
import { useEffectResult, useRuntime, valueOf } from "./RuntimeProvider.js"

/**
 * @since 0.4.0
 * @category models
 */
export interface State {
  /** Whether the conversation is there (the provider's runtime may still be starting). */
  readonly ready: boolean
  /** A search is running. */
  readonly searching: boolean
  /** The hits of the latest search, best first, each naming its server. */
  readonly results: ReadonlyArray<ToolSearch.Hit>
  /** The registry names the conversation has activated, in name order. */
  readonly activated: ReadonlyArray<string>
  /** Why the latest operation failed (the store could not be read or written, an unknown tool). */
  readonly error: string | undefined
  /** Searches and activates what was found; a newer search wins over one still running. */
  readonly search: (query: string, options?: ToolSearch.SearchOptions) => void
  /** Activates tools by registry name (a person picking tools for the model). */
  readonly activate: (names: ReadonlyArray<string>) => void
  /** Forgets the conversation's activated tools and the results. */
  readonly reset: () => void
}

const none: ReadonlyArray<never> = []

/**
 * @since 0.4.0
 * @category hooks
 */
export const useToolSearch = (conversationId: string, options?: ToolSearch.ConversationOptions): State => {
  const runtime = useRuntime()
  const pinnedKey = (options?.pinned ?? none).join("\u0000")
  const conversation = valueOf(useEffectResult(
    ToolSearch.conversation(conversationId, options),
    [conversationId, options?.mode, options?.limit, options?.prefix, pinnedKey]
  ))
  const [results, setResults] = React.useState<ReadonlyArray<ToolSearch.Hit>>(none)
  const [activated, setActivated] = React.useState<ReadonlyArray<string>>(none)
  const [searching, setSearching] = React.useState(false)
  const [error, setError] = React.useState<string | undefined>(undefined)
  // which operation owns the state: a newer one makes an older one's late exit change nothing
  const latest = React.useRef(0)

  /** Runs `effect`, then re-reads the activated tools; only the latest operation sets the state. */
  const run = React.useCallback(<A, E>(effect: Effect.Effect<A, E>, onSuccess: (a: A) => void) => {
    if (runtime === null || conversation === undefined) return () => {}
    const mine = ++latest.current
    return runtime.runCallback(Effect.zip(effect, conversation.activated), {
      onExit: (exit: Exit.Exit<readonly [A, ReadonlyArray<string>], unknown>) => {
        if (mine !== latest.current) return
        setSearching(false)
        if (Exit.isSuccess(exit)) {
          setError(undefined)
          onSuccess(exit.value[0])
          setActivated(exit.value[1])
        } else if (!Exit.isInterrupted(exit)) {
          const failure = Cause.squash(exit.cause)
          setError(failure instanceof Error ? failure.message : String(failure))
        }
      }
    })
  }, [runtime, conversation])

  // the activated tools as stored (another tab or process may have added some)
  React.useEffect(() => {
    if (conversation === undefined) return
    setResults(none)
    return run(Effect.void, () => {})
  }, [conversation, run])

  const search = React.useCallback((query: string, searchOptions?: ToolSearch.SearchOptions) => {
    if (conversation === undefined) return
    setSearching(true)
    run(conversation.search(query, searchOptions), setResults)
  }, [conversation, run])

  const activate = React.useCallback((names: ReadonlyArray<string>) => {
    if (conversation !== undefined) run(conversation.activate(names), () => {})
  }, [conversation, run])

  const reset = React.useCallback(() => {
    if (conversation === undefined) return
    run(conversation.reset, () => setResults(none))
  }, [conversation, run])

  return { ready: conversation !== undefined, searching, results, activated, error, search, activate, reset }
}
