/**
 * The YAML frontmatter of a `SKILL.md` (the block between the opening `---`
 * line and the next `---` line), parsed into JSON values for a field-by-field
 * comparison. A deliberately small subset of YAML, the one skill files use:
 * mappings and `- item` sequences by indentation, plain, single- and
 * double-quoted scalars, `|` and `>` block scalars, `[a, b]` flow sequences of
 * scalars, `#` comments. Anything else (anchors, tags, flow mappings,
 * multi-line plain scalars) is not guessed at: the parse fails, and a caller
 * verifying a skill treats that as a mismatch.
 *
 * @internal
 */

/** A parsed value: what `JSON.parse` would give for the same data. */
export type Value = string | number | boolean | null | ReadonlyArray<Value> | { readonly [key: string]: Value }

/** Parse failure, with the line (1-based, in the frontmatter block) it is about. */
export class FrontmatterError {
  constructor(readonly message: string) {}
}

interface Line {
  readonly indent: number
  readonly text: string
  readonly number: number
}

/**
 * The frontmatter of a Markdown document as a mapping, `undefined` when the
 * document has none; throws `FrontmatterError` on YAML outside the subset.
 *
 * @internal
 */
export const parse = (document: string): Readonly<Record<string, Value>> | undefined => {
  const lines = document.replace(/^\uFEFF/, "").split(/\r?\n/)
  if (lines[0]?.trimEnd() !== "---") return undefined
  const end = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---")
  if (end === -1) throw new FrontmatterError("the frontmatter has no closing --- line")
  const block = lines.slice(1, end).map((raw, i) => ({ raw, number: i + 1 }))
  const parser = new Parser(block)
  const value = parser.document()
  if (value === null) return {}
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new FrontmatterError("the frontmatter is not a mapping")
  }
  return value as Record<string, Value>
}

const significant = (raw: string): boolean => {
  const trimmed = raw.trim()
  return trimmed !== "" && !trimmed.startsWith("#")
}

class Parser {
  private index = 0
  constructor(private readonly raw: ReadonlyArray<{ readonly raw: string; readonly number: number }>) {}

  document(): Value {
    const first = this.peek()
    if (first === undefined) return null
    const value = this.node(first.indent)
    const rest = this.peek()
    if (rest !== undefined) throw this.error(rest, "unexpected indentation")
    return value
  }

  /** The next significant line, without consuming it. */
  private peek(): Line | undefined {
    while (this.index < this.raw.length && !significant(this.raw[this.index].raw)) this.index++
    const line = this.raw[this.index]
    if (line === undefined) return undefined
    if (/^\s*\t/.test(line.raw)) throw new FrontmatterError(`line ${line.number}: tabs do not indent YAML`)
    const indent = line.raw.length - line.raw.trimStart().length
    return { indent, text: stripComment(line.raw.trim()), number: line.number }
  }

  private error(line: Line, message: string) {
    return new FrontmatterError(`line ${line.number}: ${message}`)
  }

  /** A block node (mapping or sequence) whose lines start at `indent`. */
  private node(indent: number): Value {
    const first = this.peek()!
    return first.text === "-" || first.text.startsWith("- ") ? this.sequence(indent) : this.mapping(indent)
  }

  private sequence(indent: number): Value {
    const items: Array<Value> = []
    // ends at the first line that is no item (a sequence under a key may sit at the key's indentation)
    for (
      let line = this.peek();
      line !== undefined && line.indent === indent && (line.text === "-" || line.text.startsWith("- "));
      line = this.peek()
    ) {
      this.index++
      const rest = line.text.slice(1).trim()
      if (rest === "") items.push(this.nested(indent))
      else if (/^[^'"[]\S*:(\s|$)/.test(rest)) throw this.error(line, "mappings inside - items are not supported")
      else items.push(this.inline(rest, line))
    }
    return items
  }

  private mapping(indent: number): Value {
    const entries: Record<string, Value> = {}
    for (let line = this.peek(); line !== undefined && line.indent === indent; line = this.peek()) {
      const match = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s'"#][^:]*?)\s*:(?:\s+(.*))?$/.exec(line.text)
      if (match === null) throw this.error(line, "expected key: value")
      this.index++
      const key = /^["']/.test(match[1]) ? String(scalar(match[1], line)) : match[1]
      if (Object.hasOwn(entries, key)) throw this.error(line, `duplicate key ${key}`)
      const rest = (match[2] ?? "").trim()
      entries[key] = rest === "" ?
        this.nested(indent) :
        rest === "|" || rest === ">" || /^[|>][+-]$/.test(rest) ?
        this.blockScalar(rest, indent) :
        this.inline(rest, line)
    }
    return entries
  }

  /** The value of a key or item with nothing after it: an indented block, or null. */
  private nested(parentIndent: number): Value {
    const next = this.peek()
    if (next === undefined || next.indent <= parentIndent) {
      // YAML lets a sequence under a key sit at the key's own indentation
      if (next !== undefined && next.indent === parentIndent && next.text.startsWith("- ")) {
        return this.sequence(parentIndent)
      }
      return null
    }
    return this.node(next.indent)
  }

  private blockScalar(header: string, parentIndent: number): Value {
    const lines: Array<string> = []
    let indent: number | undefined
    while (this.index < this.raw.length) {
      const raw = this.raw[this.index].raw
      const current = raw.length - raw.trimStart().length
      if (raw.trim() !== "" && current <= parentIndent) break
      if (raw.trim() !== "") indent ??= current
      lines.push(raw.trim() === "" ? "" : raw.slice(indent))
      this.index++
    }
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop()
    const body = header.startsWith("|") ?
      lines.join("\n") :
      lines.reduce(
        (text, line, i) =>
          i === 0 ? line : line === "" ? `${text}\n` : text.endsWith("\n") ? text + line : `${text} ${line}`,
        ""
      )
    if (header.endsWith("-")) return body
    return body === "" ? "" : `${body}\n`
  }

  private inline(text: string, line: Line): Value {
    if (text.startsWith("[")) {
      if (!text.endsWith("]")) throw this.error(line, "unterminated [ sequence")
      const inner = text.slice(1, -1).trim()
      return inner === "" ? [] : splitFlow(inner).map((item) => scalar(item.trim(), line))
    }
    if (text.startsWith("{")) throw this.error(line, "flow mappings are not supported")
    return scalar(text, line)
  }
}

const stripComment = (text: string): string => {
  let quote: string | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quote !== undefined) {
      if (c === "\\" && quote === "\"") i++
      else if (c === quote) quote = undefined
    } else if (c === "\"" || c === "'") {
      if (i === 0 || /[\s:[,-]/.test(text[i - 1])) quote = c
    } else if (c === "#" && i > 0 && /\s/.test(text[i - 1])) {
      return text.slice(0, i).trimEnd()
    }
  }
  return text
}

const splitFlow = (inner: string): Array<string> => {
  const items: Array<string> = []
  let quote: string | undefined
  let start = 0
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]
    if (quote !== undefined) {
      if (c === "\\" && quote === "\"") i++
      else if (c === quote) quote = undefined
    } else if (c === "\"" || c === "'") quote = c
    else if (c === ",") {
      items.push(inner.slice(start, i))
      start = i + 1
    }
  }
  items.push(inner.slice(start))
  return items
}

const escapes: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\"": "\"", "\\": "\\", "/": "/", "0": "\0" }

const scalar = (text: string, line: Line): Value => {
  if (text.startsWith("\"")) {
    if (!/^"(?:[^"\\]|\\.)*"$/.test(text)) throw new FrontmatterError(`line ${line.number}: bad double-quoted string`)
    return text.slice(1, -1).replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, e: string) => {
      if (e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16))
      const replacement = escapes[e]
      if (replacement === undefined) throw new FrontmatterError(`line ${line.number}: unknown escape \\${e}`)
      return replacement
    })
  }
  if (text.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(text)) throw new FrontmatterError(`line ${line.number}: bad single-quoted string`)
    return text.slice(1, -1).replace(/''/g, "'")
  }
  if (/^[&*!|>%@`]/.test(text)) throw new FrontmatterError(`line ${line.number}: unsupported YAML: ${text}`)
  if (text === "~" || text === "null" || text === "Null" || text === "NULL") return null
  if (/^(true|True|TRUE)$/.test(text)) return true
  if (/^(false|False|FALSE)$/.test(text)) return false
  if (/^[-+]?(0|[1-9][0-9]*)$/.test(text)) return Number(text)
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)) return Number(text)
  return text
}

/**
 * Deep equality of two JSON values (key order ignored).
 *
 * @internal
 */
export const equal = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const other = b as ReadonlyArray<unknown>
    return a.length === other.length && a.every((item, i) => equal(item, other[i]))
  }
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  return keysA.length === keysB.length &&
    keysA.every((key) =>
      Object.hasOwn(b, key) && equal((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])
    )
}
