/**
 * Timing and memory helpers: interleaved repeats, medians, best rounds,
 * idle heap per session, heap per in-flight request.
 */
import type { Holder, Subject } from "./subject.js"

export type Name = "ours" | "sdk" | "raw"

export interface Contender {
  readonly name: Name
  readonly subject: Subject
}

export type Scores = Partial<Record<Name, number>>

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** The contenders in a different order each round, so none always runs first (or right after GC of another). */
const rotated = <A>(items: ReadonlyArray<A>, round: number): ReadonlyArray<A> =>
  items.map((_, i) => items[(i + round) % items.length]!)

/**
 * Sequential round trips: one warm-up batch per contender, then `repeats`
 * interleaved batches of `calls`; the median batch, in microseconds per call.
 */
export const latency = async (
  contenders: ReadonlyArray<Contender>,
  options: { readonly calls: number; readonly warmup: number; readonly repeats: number },
  log: (line: string) => void
): Promise<Scores> => {
  for (const { subject } of contenders) await subject.sequential(options.warmup)
  const samples = new Map<Name, Array<number>>(contenders.map((c) => [c.name, []]))
  for (let round = 0; round < options.repeats; round++) {
    for (const { name, subject } of rotated(contenders, round)) {
      const micros = ((await subject.sequential(options.calls)) * 1000) / options.calls
      samples.get(name)!.push(micros)
    }
  }
  const scores: Scores = {}
  for (const [name, values] of samples) {
    scores[name] = median(values)
    log(`  ${name}: ${values.map((v) => v.toFixed(1)).join(" ")} µs/call`)
  }
  return scores
}

/**
 * Bursts of `concurrency` calls in flight at once: one warm-up burst per
 * contender, then `rounds` interleaved bursts; the best, in calls per second.
 */
export const throughput = async (
  contenders: ReadonlyArray<Contender>,
  options: { readonly concurrency: number; readonly rounds: number },
  log: (line: string) => void
): Promise<Scores> => {
  for (const { subject } of contenders) await subject.concurrent(options.concurrency)
  const samples = new Map<Name, Array<number>>(contenders.map((c) => [c.name, []]))
  for (let round = 0; round < options.rounds; round++) {
    for (const { name, subject } of rotated(contenders, round)) {
      const millis = await subject.concurrent(options.concurrency)
      samples.get(name)!.push((options.concurrency * 1000) / millis)
    }
  }
  const scores: Scores = {}
  for (const [name, values] of samples) {
    scores[name] = Math.max(...values)
    log(`  ${name}: ${values.map((v) => v.toFixed(0)).join(" ")} calls/s`)
  }
  return scores
}

const sleep = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis))

const collectGarbage = async (): Promise<number> => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error("run node with --expose-gc (npm run bench does)")
  // twice, with a turn of the event loop between, so weak and finalized objects go too
  gc()
  await sleep(50)
  gc()
  return process.memoryUsage().heapUsed
}

/**
 * Heap held per idle session: after one warm-up session (opened and closed),
 * opens `sessions` connected sessions one after
 * the other, lets them settle, and divides the growth of the used heap
 * (after full GCs) by their number. In KiB per session. Also reports what is
 * still held once they are all closed again (a leak shows there).
 */
export const idleHeap = async (
  sessions: number,
  open: () => Promise<() => Promise<void>>
): Promise<{ readonly open: number; readonly firstOpen: number; readonly afterClose: number }> => {
  // one session opened and closed first, so one-off costs (lazy module state) are not counted per session
  await (await open())()
  const before = await collectGarbage()
  const closers: Array<() => Promise<void>> = []
  const openMore = async () => {
    for (let i = 0; i < sessions; i++) closers.push(await open())
    await sleep(settleMillis)
    return collectGarbage()
  }
  // the first `sessions` still carry one-off costs that grow with use, chiefly code the JIT compiles as the
  // same paths run again; what each further session adds is the cost of a session
  const first = await openMore()
  const second = await openMore()
  for (const close of closers) await close()
  closers.length = 0
  await sleep(settleMillis)
  const closed = await collectGarbage()
  const perSession = (bytes: number, count: number) => bytes / count / 1024
  return {
    open: perSession(second - first, sessions),
    firstOpen: perSession(first - before, sessions),
    afterClose: perSession(closed - before, 2 * sessions)
  }
}

// time for GET streams to open (or, after closing, for DELETEs and finalizers to finish)
const settleMillis = 500

/** Waits until the server has received all `n` held calls (polling its `pending` tool). */
const allPending = async (holder: Holder, n: number) => {
  while ((await holder.pending()) < n) await sleep(10)
}

/**
 * Heap held per in-flight request: starts `n` calls the server does not
 * answer until told to, waits until the server has them all, and divides the
 * growth of the used heap (after full GCs) by `n`. One warm-up round, then
 * `rounds` rounds; the median, in KiB per request.
 */
export const inFlightHeap = async (
  holder: Holder,
  options: { readonly requests: number; readonly rounds: number }
): Promise<{ readonly median: number; readonly samples: ReadonlyArray<number> }> => {
  const round = async () => {
    const before = await collectGarbage()
    const answered = holder.hold(options.requests)
    await allPending(holder, options.requests)
    const during = await collectGarbage()
    await holder.release()
    await answered
    return (during - before) / options.requests / 1024
  }
  await round()
  const samples: Array<number> = []
  for (let i = 0; i < options.rounds; i++) samples.push(await round())
  return { median: median(samples), samples }
}
