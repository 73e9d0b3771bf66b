import { defineProject } from "vitest/config"
import { resolve } from "../../vitest.shared.js"

export default defineProject({
  resolve,
  esbuild: { jsx: "automatic" },
  test: { name: "react", include: ["test/**/*.test.{ts,tsx}"], environment: "happy-dom", testTimeout: 30_000 }
})
