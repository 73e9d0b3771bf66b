// Type-checks every TypeScript code block of the repository's READMEs against the packages.
//
// A block fenced as ```ts (or ```typescript) is compiled as a module of its own: it must import
// what it uses and declare its placeholders (`declare const askTheUser: ...`). A block that is
// deliberately partial is fenced as ```ts fragment and is skipped. Run by `npm run check`.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..")
const out = path.join(root, ".cache", "readme-blocks")
const skipDirs = new Set(["node_modules", "dist", ".cache", ".git", ".node22", "conformance-results", "e2e-results"])

const readmes = []
const walk = (dir) => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!skipDirs.has(entry.name) && !entry.name.startsWith(".")) walk(path.join(dir, entry.name))
    } else if (entry.name === "README.md" || entry.name === "ARCHITECTURE.md") {
      readmes.push(path.join(dir, entry.name))
    }
  }
}
walk(root)

fs.rmSync(out, { recursive: true, force: true })
fs.mkdirSync(out, { recursive: true })
const files = []
for (const readme of readmes) {
  const lines = fs.readFileSync(readme, "utf8").split("\n")
  let open
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)(```+)(.*)$/.exec(lines[i])
    if (!fence) {
      open?.body.push(lines[i])
      continue
    }
    if (open) {
      if (fence[2].length >= open.fence.length && fence[3].trim() === "") {
        if (open.compile) files.push(write(readme, open))
        open = undefined
      } else {
        open.body.push(lines[i])
      }
      continue
    }
    const info = fence[3].trim().split(/\s+/)
    open = {
      fence: fence[2],
      line: i + 1,
      body: [],
      compile: (info[0] === "ts" || info[0] === "typescript") && !info.includes("fragment")
    }
  }
  if (open) {
    console.error(`${path.relative(root, readme)}:${open.line}: a code fence is never closed`)
    process.exit(1)
  }
}

function write(readme, block) {
  const name = `${path.relative(root, readme).replace(/[^A-Za-z0-9]+/g, "_")}_L${block.line}.ts`
  const body = block.body.join("\n")
  const isModule = /^\s*(import|export)\s/m.test(body)
  fs.writeFileSync(
    path.join(out, name),
    `// ${path.relative(root, readme)}:${block.line}\n${body}\n${isModule ? "" : "export {}\n"}`
  )
  return name
}

fs.writeFileSync(
  path.join(out, "tsconfig.json"),
  JSON.stringify(
    {
      extends: "../../tsconfig.base.json",
      compilerOptions: {
        rootDir: ".",
        noEmit: true,
        composite: false,
        incremental: false,
        noUnusedLocals: false,
        noUnusedParameters: false,
        types: ["node"]
      },
      include: ["*.ts"]
    },
    null,
    2
  )
)
if (files.length === 0) {
  console.log("readme blocks: none")
  process.exit(0)
}
try {
  execFileSync(path.join(root, "node_modules", ".bin", "tsc"), ["-p", path.join(out, "tsconfig.json")], {
    stdio: "inherit",
    cwd: root
  })
} catch {
  console.error(`readme blocks: type errors (the files in ${path.relative(root, out)} name their README line)`)
  process.exit(1)
}
console.log(`readme blocks: ${files.length} compiled from ${readmes.length} READMEs`)
