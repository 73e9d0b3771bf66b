import { describe, expect, it } from "@effect/vitest"
import { measureMinimalClient } from "../browser/bundle.js"

// Size budget of the minimal browser client (`examples/installed-browser.ts`: Streamable HTTP with
// `FetchHttpClient`, list tools, call one), bundled with esbuild (minified, ESM) and gzipped -9.
// Deterministic for a given lockfile, so it is a test; timings live in `npm run bench`.
//
// The budgets are ~10 % above the sizes measured on 2026-11-23 (own code 30.2 KB, total 131.3 KB;
// own code 33.3 KB, total 135.4 KB once request spans and session resumption landed, the same day;
// own code 41.4 KB, total 143.1 KB with protocol 2026-07-28: the core era and the HTTP binding):
// they stop growth. Issue 8's targets are lower (own code ≤ 15 KB, total ≤ 100 KB); lower the
// budgets as the bundle shrinks.
const ownBudgetKb = 45
const totalBudgetKb = 145

describe("browser bundle size", () => {
  it("stays within the own-code and total gzip budgets", { timeout: 60_000 }, async () => {
    const { ownGzipKb, totalGzipKb } = await measureMinimalClient()
    const sizes = `own code ${ownGzipKb.toFixed(1)} KB, total ${totalGzipKb.toFixed(1)} KB gzip`
    expect(
      ownGzipKb,
      `${sizes}: own code (effect and @effect/* external) is over its ${ownBudgetKb} KB budget (issue 8 target: 15 KB)`
    ).toBeLessThanOrEqual(ownBudgetKb)
    expect(
      totalGzipKb,
      `${sizes}: the whole bundle is over its ${totalBudgetKb} KB budget (issue 8 target: 100 KB)`
    ).toBeLessThanOrEqual(totalBudgetKb)
  })
})
