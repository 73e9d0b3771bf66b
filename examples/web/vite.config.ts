/**
 * The web console: Vite 7 with esbuild's JSX (no React plugin), built from
 * the packages' TypeScript sources (the `@mcp-effect/source` condition).
 */
import { defaultClientConditions, defineConfig } from "vite"

export default defineConfig({
  root: import.meta.dirname,
  esbuild: { jsx: "automatic" },
  resolve: { conditions: ["@mcp-effect/source", ...defaultClientConditions] },
  server: { host: "127.0.0.1", port: 5173, strictPort: false },
  preview: { host: "127.0.0.1" },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    reportCompressedSize: true,
    chunkSizeWarningLimit: 1000
  }
})
