import { defineConfig } from "vitest/config"

// vitest 3.2 deprecates `vitest.workspace.ts`; projects are declared here with `test.projects`.
export default defineConfig({
  test: {
    projects: ["packages/*", "integration"],
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } }
  }
})
