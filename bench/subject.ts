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

/**
 * A session that keeps calls pending on the fixture's `hold` tool, for the
 * in-flight heap metric.
 */
export interface Holder {
  /** Starts `n` `hold` calls at once; resolves when all of them have been answered. */
  readonly hold: (n: number) => Promise<void>
  /** How many `hold` calls the server has received and not yet answered. */
  readonly pending: () => Promise<number>
  /** Lets the server answer every waiting `hold` call. */
  readonly release: () => Promise<void>
  readonly close: () => Promise<void>
}

/** The count in a `pending` / `release` result's text block. */
export const countOf = (result: unknown): number => {
  const text = (result as { content?: ReadonlyArray<{ text?: string }> } | undefined)?.content?.[0]?.text
  const n = Number(text)
  if (!Number.isInteger(n)) throw new Error(`unexpected count result ${JSON.stringify(result)}`)
  return n
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

/**
 * The subject of a hand-written client: its first echo is checked, then its
 * timed batches call `request("tools/call", echoCall)`.
 */
export const rawSubject = async (
  request: (method: string, params: unknown) => Promise<unknown>,
  close: () => Promise<void>
): Promise<Subject> => {
  checkEcho("raw", await request("tools/call", echoCall))
  return {
    sequential: async (n) => {
      const start = performance.now()
      for (let i = 0; i < n; i++) await request("tools/call", echoCall)
      return elapsedSince(start)
    },
    concurrent: async (n) => {
      const start = performance.now()
      await Promise.all(Array.from({ length: n }, () => request("tools/call", echoCall)))
      return elapsedSince(start)
    },
    close
  }
}
