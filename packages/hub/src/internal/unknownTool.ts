import * as ServerRegistry from "../ServerRegistry.js"

/** How many names that went away are remembered (a server may rename its tools endlessly). */
const capacity = 1024

/** The registry names that went away, for the error of a call by an old name. */
export interface Renames {
  /** Remembers what the names of `before` missing from `after` named. */
  readonly track: (
    before: ReadonlyMap<string, ServerRegistry.HubTool>,
    after: ReadonlyMap<string, ServerRegistry.HubTool>
  ) => void
  /** The error of a call by `name`, naming the tool's current name when it only was renamed. */
  readonly unknown: (name: string, current: ReadonlyMap<string, ServerRegistry.HubTool>) => ServerRegistry.UnknownTool
}

export const make = (): Renames => {
  const former = new Map<string, { readonly server: string; readonly tool: string }>()
  return {
    track: (before, after) => {
      for (const [name, tool] of before) {
        if (after.has(name)) continue
        former.delete(name)
        former.set(name, { server: tool.server, tool: tool.tool.name })
        if (former.size > capacity) former.delete(former.keys().next().value!)
      }
      for (const name of after.keys()) former.delete(name)
    },
    unknown: (name, current) => {
      const was = former.get(name)
      let now: string | undefined
      if (was !== undefined) {
        for (const tool of current.values()) {
          if (tool.server === was.server && tool.tool.name === was.tool) {
            now = tool.name
            break
          }
        }
      }
      return new ServerRegistry.UnknownTool({ name, ...(now === undefined ? {} : { current: now }) })
    }
  }
}
