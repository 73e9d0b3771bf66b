import { defineProject } from "vitest/config"

export default defineProject({
  resolve: { conditions: ["@mcp-effect/source"] },
  test: { name: "integration", include: ["**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 }
})
