import { defineConfig } from "vitest/config"

// vitest 3.2 deprecates `vitest.workspace.ts`; projects are declared here with `test.projects`.
export default defineConfig({
  test: {
    projects: ["packages/*", "integration"],
    // the JSON report lets .ci/run print a plain closing count
    reporters: ["default", ["json", { outputFile: ".cache/vitest-report.json" }]],
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } }
  }
})
