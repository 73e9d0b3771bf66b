/**
 * The environment a server process starts with: a whitelist of the parent's
 * variables plus the configured ones, never the rest of the parent's.
 */

interface HostProcess {
  readonly env: Record<string, string | undefined>
  readonly platform: string
}

const host: HostProcess | undefined = (globalThis as { readonly process?: HostProcess }).process

/** @internal */
export const posixInherited: ReadonlyArray<string> = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]

/** @internal */
export const win32Inherited: ReadonlyArray<string> = [
  "APPDATA",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PATH",
  "PROCESSOR_ARCHITECTURE",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "USERNAME",
  "USERPROFILE",
  "PROGRAMFILES"
]

/** @internal */
export const isWindows: boolean = host?.platform === "win32"

/** @internal */
export const isLinux: boolean = host?.platform === "linux"

/** @internal */
export const defaultInherited: ReadonlyArray<string> = isWindows ? win32Inherited : posixInherited

/** @internal */
export const build = (
  configured: Readonly<Record<string, string>> | undefined,
  inheritEnv: ReadonlyArray<string> | undefined
): Record<string, string> => {
  const env: Record<string, string> = {}
  const parent = host?.env ?? {}
  const copy = (name: string) => {
    const value = parent[name]
    // values starting with "()" are exported shell functions: a known injection vector
    if (value !== undefined && !value.startsWith("()")) env[name] = value
  }
  defaultInherited.forEach(copy)
  inheritEnv?.forEach(copy)
  return configured === undefined ? env : Object.assign(env, configured)
}
