import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type { UserConfig } from "vitest/config"

const root = path.dirname(fileURLToPath(import.meta.url))

/**
 * Tests run against the TypeScript sources of the workspace packages, never
 * against a stale `dist`.
 */
export const resolve: NonNullable<UserConfig["resolve"]> = {
  alias: ["core", "transport-stdio", "transport-http", "transport-websocket", "oauth", "hub", "kv-redis", "react"]
    .flatMap((name) => [
      { find: new RegExp(`^@mcp-effect/${name}$`), replacement: path.join(root, `packages/${name}/src/index.ts`) },
      { find: new RegExp(`^@mcp-effect/${name}/(.*)$`), replacement: path.join(root, `packages/${name}/src/$1.ts`) }
    ])
}
