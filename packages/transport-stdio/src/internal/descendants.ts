/**
 * A server's descendants that left its process group (`setsid`, a daemon's
 * own group): the group signals of the shutdown ladder miss them. On Linux
 * they are found by walking the parent links in `/proc/<pid>/stat` while
 * the server still runs, and each is remembered with its start time, so a
 * recycled pid is never signalled. Elsewhere there are none to find.
 */
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import { isLinux } from "./environment.js"

/** @internal */
export interface Descendant {
  readonly pid: number
  /** Leads its own process group: signalled as a group. */
  readonly leader: boolean
  readonly startTime: string
}

interface Stat {
  readonly ppid: number
  readonly pgrp: number
  readonly startTime: string
}

const readStat = (pid: number): Stat | undefined => {
  try {
    const text = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // the command name may contain spaces and parentheses: the fields start after the last ")"
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
    // fields[0] is field 3 of proc(5): state; then ppid, pgrp, ...; starttime is field 22
    return { ppid: Number(fields[1]), pgrp: Number(fields[2]), startTime: fields[19] }
  } catch {
    return undefined
  }
}

/**
 * The descendants of `root` outside its process group, as of now.
 *
 * @internal
 */
export const capture = (root: number): Effect.Effect<ReadonlyArray<Descendant>> =>
  Effect.sync(() => {
    if (!isLinux) return []
    let entries: Array<string>
    try {
      entries = Fs.readdirSync("/proc")
    } catch {
      return []
    }
    const children = new Map<number, Array<number>>()
    const stats = new Map<number, Stat>()
    for (const entry of entries) {
      const pid = Number(entry)
      if (!Number.isInteger(pid)) continue
      const stat = readStat(pid)
      if (stat === undefined) continue
      stats.set(pid, stat)
      const siblings = children.get(stat.ppid)
      if (siblings === undefined) children.set(stat.ppid, [pid])
      else siblings.push(pid)
    }
    const found: Array<Descendant> = []
    const pending = [...(children.get(root) ?? [])]
    while (pending.length > 0) {
      const pid = pending.pop()!
      const stat = stats.get(pid)!
      if (stat.pgrp !== root) found.push({ pid, leader: stat.pgrp === pid, startTime: stat.startTime })
      // eslint-disable-next-line no-restricted-syntax -- one process's children: a short list (h-transport owns this file)
      pending.push(...(children.get(pid) ?? []))
    }
    return found
  })

/**
 * Signals the descendants that are still the processes captured (same pid,
 * same start time); the others are gone.
 *
 * @internal
 */
export const signal = (descendants: ReadonlyArray<Descendant>, signal: "SIGTERM" | "SIGKILL"): Effect.Effect<void> =>
  Effect.sync(() => {
    for (const descendant of descendants) {
      if (readStat(descendant.pid)?.startTime !== descendant.startTime) continue
      try {
        process.kill(descendant.leader ? -descendant.pid : descendant.pid, signal)
      } catch {
        // gone in between
      }
    }
  })
