/**
 * What every benchmarked client provides, whatever its API: timed batches of
 * the same small `tools/call`, on its own connection to the fixture server.
 */

/** The call every client makes: `echo` with a short text. */
export const echoCall = { name: "echo", arguments: { text: "hello" } } as const

/** The text `echoCall` must come back with (checked once per client). */
export const echoText = "hello"

export interface Subject {
  /** `n` calls one after the other; resolves with the elapsed milliseconds. */
  readonly sequential: (n: number) => Promise<number>
  /** `n` calls all in flight at once; resolves with the elapsed milliseconds. */
  readonly concurrent: (n: number) => Promise<number>
  readonly close: () => Promise<void>
}

/** Fails loudly when a client's first result is not the echo (a broken setup would time nothing). */
export const checkEcho = (who: string, result: unknown): void => {
  const content = (result as { content?: ReadonlyArray<{ type?: string; text?: string }> } | undefined)?.content
  const first = content?.[0]
  if (first?.type !== "text" || first.text !== echoText) {
    throw new Error(`${who}: unexpected echo result ${JSON.stringify(result)}`)
  }
}

export const elapsedSince = (start: number): number => performance.now() - start
