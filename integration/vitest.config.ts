import { defineProject } from "vitest/config"
import { resolve } from "../vitest.shared.js"

export default defineProject({
  resolve,
  test: { name: "integration", include: ["**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 }
})
