import { defineProject } from "vitest/config"

export default defineProject({
  resolve: { conditions: ["@mcp-effect/source"] },
  test: { name: "transport-http", include: ["test/**/*.test.ts"], testTimeout: 30_000, hookTimeout: 30_000 }
})
