import { defineProject } from "vitest/config"
import { resolve } from "../../vitest.shared.js"

export default defineProject({
  resolve,
  test: { name: "transport-websocket", include: ["test/**/*.test.ts"], testTimeout: 30_000, hookTimeout: 30_000 }
})
