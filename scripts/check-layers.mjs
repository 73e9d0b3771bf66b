// The layer check (`npm run check`): for every package under packages/, it fails on
//   (a) an import from a lower layer to a higher one (type imports included: a type is a dependency too),
//   (b) a value import cycle (imports that survive compilation; `import type`, imports used only as types
//       and dynamic `import()` are left out, since none of them runs a module when it loads),
//   (c) a source file importing the `internal/` of another package.
// A file's layer is the folder it sits in (`src/internal/<layer>/…`) or, for a file outside a layer folder,
// its entry in the package's `files` map below. In a package with a layer table, a file with no layer fails
// the check, with a message saying how to assign it. `ARCHITECTURE.md` states the rule.
//
//   node scripts/check-layers.mjs           check every package
//   node scripts/check-layers.mjs --graph   also print each package's value imports, by layer
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

/**
 * Per package: its layers from the lowest to the highest, and the layer of each file outside a
 * `src/internal/<layer>/` folder (keys are paths under `src/`; a key ending in `/` covers a folder).
 * A package with no entry has two layers: `module` (every file) and `entry` (its `index.ts`).
 * `known` lists imports the check lets pass for now, each with the reason; an entry that no longer
 * matches an import is reported, so the list only shrinks.
 */
export const packages = {
  core: {
    layers: ["platform", "wire", "policy", "engine", "client", "extensions", "testing", "entry"],
    files: {
      // wire: the MCP and JSON-RPC formats and the error family
      "McpSchema.ts": "wire",
      "JsonRpc.ts": "wire",
      "McpError.ts": "wire",
      "Redaction.ts": "wire",
      // engine: the session, the transport contract and what the session keeps
      "ClientSession.ts": "engine",
      "ProtocolEra.ts": "engine",
      "ProtocolEra2025.ts": "engine",
      "ProtocolEra2026.ts": "engine",
      "McpTransport.ts": "engine",
      "RequestHeaders.ts": "engine",
      "SessionStore.ts": "engine",
      "Sampling.ts": "engine",
      "Elicitation.ts": "engine",
      "Roots.ts": "engine",
      "ClientExtensions.ts": "engine",
      "TaskPolling.ts": "engine",
      "internal/session.ts": "engine",
      "internal/session/": "engine",
      "internal/era/": "engine",
      "internal/handlers.ts": "engine",
      "internal/reconnect.ts": "engine",
      "internal/resume.ts": "engine",
      "internal/methods.ts": "engine",
      // policy: the app services asked around a call
      "ApprovalDecision.ts": "policy",
      "ApprovalPolicy.ts": "policy",
      "ApprovalRequest.ts": "policy",
      "Approver.ts": "policy",
      "ToolCallLog.ts": "policy",
      "SharedStore.ts": "policy",
      "DurableTasks.ts": "client",
      "Continuations.ts": "policy",
      "ResponseCache.ts": "client",
      "JsonSchemaValidator.ts": "policy",
      // client: the typed client over the session
      "McpClient.ts": "client",
      "internal/client.ts": "client",
      // extensions: protocol extensions built on the client
      "Skills.ts": "extensions",
      "McpApps.ts": "extensions",
      // testing: the test kit
      "TestServer.ts": "testing",
      "TestTracer.ts": "testing",
      "InMemoryTransport.ts": "testing",
      "index.ts": "entry"
    },
    known: [
      {
        from: "internal/reconnect.ts",
        to: "McpTransport.ts",
        why:
          "value cycle McpTransport.ts <-> internal/reconnect.ts: the transport contract's rework (issue 27 step 3) ends it"
      }
    ]
  }
}

const defaultPackage = { layers: ["module", "entry"], files: { "index.ts": "entry" }, fallback: "module", known: [] }

const sourceFile = (file) => /\.(ts|tsx|mts)$/.test(file) && !/\.d\.(ts|mts)$/.test(file)

const walk = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? walk(full) : sourceFile(entry.name) ? [full] : []
  })

const specifiersOf = (text, fileName) => {
  const found = []
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push({ specifier: node.moduleSpecifier.text, dynamic: false })
    } else if (
      ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, dynamic: true })
    } else if (
      ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)
    ) {
      found.push({ specifier: node.argument.literal.text, dynamic: false })
    }
    ts.forEachChild(node, visit)
  }
  visit(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TSX))
  return found
}

// The imports a file has at run time: what the compiler keeps of it, one file at a time
// (the project compiles with `isolatedModules`, so this is what `tsc` emits too).
const runtimeSpecifiersOf = (text, fileName) => {
  const js = ts.transpileModule(text, {
    fileName,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      jsx: ts.JsxEmit.ReactJSX,
      isolatedModules: true,
      verbatimModuleSyntax: false
    }
  }).outputText
  return specifiersOf(js, fileName.replace(/\.tsx?$/, ".js"))
}

const resolveRelative = (from, specifier) => {
  const base = path.resolve(path.dirname(from), specifier)
  const stem = base.replace(/\.(m?js|jsx)$/, "")
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, path.join(base, "index.ts")]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate
  }
  return undefined
}

const layerOf = (config, rel) => {
  const folder = /^internal\/([^/]+)\//.exec(rel)
  if (folder && config.layers.includes(folder[1])) return folder[1]
  if (config.files[rel] !== undefined) return config.files[rel]
  const prefix = Object.keys(config.files)
    .filter((key) => key.endsWith("/") && rel.startsWith(key))
    .sort((a, b) => b.length - a.length)[0]
  return prefix !== undefined ? config.files[prefix] : config.fallback
}

// Tarjan's strongly connected components: every group of two or more files that import each other.
const cyclesOf = (nodes, edges) => {
  let index = 0
  const stack = []
  const state = new Map()
  const groups = []
  const connect = (node) => {
    const own = { index, low: index, onStack: true }
    index++
    state.set(node, own)
    stack.push(node)
    for (const next of edges.get(node) ?? []) {
      const seen = state.get(next)
      if (seen === undefined) {
        connect(next)
        own.low = Math.min(own.low, state.get(next).low)
      } else if (seen.onStack) {
        own.low = Math.min(own.low, seen.index)
      }
    }
    if (own.low === own.index) {
      const group = []
      let member
      do {
        member = stack.pop()
        state.get(member).onStack = false
        group.push(member)
      } while (member !== node)
      if (group.length > 1 || (edges.get(node) ?? new Set()).has(node)) groups.push(group.sort())
    }
  }
  for (const node of nodes) if (!state.has(node)) connect(node)
  return groups
}

/**
 * Checks every package under `root/packages`. Returns the problems (each a message naming the files)
 * and the notes (known imports that no longer occur).
 */
export const checkLayers = (root, config = packages) => {
  const problems = []
  const notes = []
  const graphs = []
  const packagesDir = path.join(root, "packages")
  const names = fs.readdirSync(packagesDir).filter((name) => fs.existsSync(path.join(packagesDir, name, "src"))).sort()
  const shown = (file) => path.relative(root, file).split(path.sep).join("/")
  for (const name of names) {
    const own = config[name]
    const pkg = own === undefined ? defaultPackage : { fallback: undefined, known: [], ...own }
    const src = path.join(packagesDir, name, "src")
    const files = walk(src).sort()
    const rel = (file) => path.relative(src, file).split(path.sep).join("/")
    const known = new Map(pkg.known.map((entry) => [`${entry.from} -> ${entry.to}`, { ...entry, used: false }]))
    const isKnown = (from, to) => {
      const entry = known.get(`${rel(from)} -> ${rel(to)}`)
      if (entry !== undefined) entry.used = true
      return entry !== undefined
    }
    const layers = new Map()
    for (const file of files) {
      const layer = layerOf(pkg, rel(file))
      if (layer === undefined || !pkg.layers.includes(layer)) {
        problems.push(
          `unassigned file: ${shown(file)} has no layer${layer === undefined ? "" : ` ("${layer}" is not one)`}. ` +
            `Put it under packages/${name}/src/internal/<layer>/, or add "${rel(file)}": "<layer>" to ` +
            `packages.${name}.files in scripts/check-layers.mjs (layers, lowest first: ${pkg.layers.join(", ")}).`
        )
      } else {
        layers.set(file, layer)
      }
    }
    const valueEdges = new Map(files.map((file) => [file, new Set()]))
    for (const file of files) {
      const text = fs.readFileSync(file, "utf8")
      const runtime = new Set(
        runtimeSpecifiersOf(text, file).filter((entry) => !entry.dynamic).map((entry) => entry.specifier)
      )
      for (const { specifier } of specifiersOf(text, file)) {
        if (specifier.startsWith("@mcp-effect/")) {
          if (/(^|\/)internal(\/|$)/.test(specifier.split("/").slice(2).join("/"))) {
            problems.push(
              `internal import across packages: ${shown(file)} imports "${specifier}"; ` +
                `import the other package's public module instead.`
            )
          }
          continue
        }
        if (!specifier.startsWith(".")) continue
        const target = resolveRelative(file, specifier)
        if (target === undefined) continue
        if (!target.startsWith(src + path.sep)) {
          if (target.includes(`${path.sep}src${path.sep}internal${path.sep}`)) {
            problems.push(
              `internal import across packages: ${shown(file)} imports ${shown(target)}; ` +
                `import the other package's public module instead.`
            )
          }
          continue
        }
        if (isKnown(file, target)) continue
        const from = layers.get(file)
        const to = layers.get(target)
        if (from !== undefined && to !== undefined && pkg.layers.indexOf(from) < pkg.layers.indexOf(to)) {
          problems.push(
            `upward import: ${shown(file)} (layer ${from}) imports ${shown(target)} (layer ${to}); ` +
              `a layer imports only its own and lower layers (lowest first: ${pkg.layers.join(", ")}).`
          )
        }
        if (runtime.has(specifier)) valueEdges.get(file).add(target)
      }
    }
    for (const group of cyclesOf(files, valueEdges)) {
      const members = new Set(group)
      const arrows = group.flatMap((from) =>
        [...valueEdges.get(from)].filter((to) => members.has(to)).map((to) => `${shown(from)} -> ${shown(to)}`)
      )
      problems.push(
        `value import cycle in ${name}: ${group.map(shown).join(", ")} (value imports: ${arrows.join("; ")}). ` +
          `Make one side import only types (\`import type\`), or move what both need into a lower module.`
      )
    }
    for (const entry of known.values()) {
      if (!entry.used) notes.push(`known import no longer found: packages/${name}/src/${entry.from} -> ${entry.to}`)
    }
    graphs.push({ name, layers, valueEdges, shown })
  }
  return { problems, notes, graphs }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL("..", import.meta.url))
  const { graphs, notes, problems } = checkLayers(root)
  if (process.argv.includes("--graph")) {
    for (const { layers, shown, valueEdges } of graphs) {
      for (const [from, targets] of valueEdges) {
        for (const to of targets) {
          console.log(`${shown(from)} (${layers.get(from)}) -> ${shown(to)} (${layers.get(to)})`)
        }
      }
    }
  }
  for (const note of notes) console.log(`note: ${note}`)
  if (problems.length > 0) {
    for (const problem of problems) console.error(problem)
    console.error(`check-layers: ${problems.length} problem(s)`)
    process.exit(1)
  }
  console.log(`check-layers: ${graphs.length} packages, imports only downward, no value import cycle`)
}
