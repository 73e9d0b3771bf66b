/**
 * Words of a tool's text and of a query, made comparable: identifiers split
 * (`getFileContents`, `list_issues`, `browser-navigate`), lower case, a light
 * suffix stemmer, stop words dropped, and a small table of words that mean
 * the same thing to a person asking for a tool.
 */

const stopWords = new Set([
  "a",
  "about",
  "all",
  "an",
  "and",
  "any",
  "are",
  "as",
  "at",
  "be",
  "by",
  "can",
  "could",
  "do",
  "does",
  "for",
  "from",
  "have",
  "how",
  "i",
  "if",
  "in",
  "into",
  "is",
  "it",
  "its",
  "me",
  "my",
  "of",
  "on",
  "or",
  "our",
  "please",
  "should",
  "so",
  "some",
  "that",
  "the",
  "their",
  "them",
  "there",
  "these",
  "this",
  "those",
  "to",
  "us",
  "want",
  "we",
  "what",
  "when",
  "where",
  "which",
  "will",
  "with",
  "would",
  "you",
  "your",
  "need",
  "let",
  "via",
  "using",
  "use",
  "given",
  "just",
  "then",
  "than",
  "also",
  "been",
  "being",
  "was",
  "were",
  "has",
  "had",
  "not",
  "no",
  "optional",
  "default",
  "true",
  "false",
  "e",
  "g",
  "eg",
  "etc",
  "ie"
])

/** A plain suffix stemmer: enough to meet `issues`/`issue`, `listing`/`list`, `created`/`create`. */
export const stem = (word: string): string => {
  if (word.length <= 3) return word
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`
  if (word.endsWith("sses")) return word.slice(0, -2)
  if (word.endsWith("ing") && word.length > 5) return trimDouble(word.slice(0, -3))
  if (word.endsWith("ed") && word.length > 4) {
    return trimDouble(word.endsWith("ied") ? `${word.slice(0, -3)}y` : word.slice(0, -2))
  }
  if (word.endsWith("es") && /(?:ch|sh|x|ss|zz)es$/.test(word)) return word.slice(0, -2)
  if (word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us") && !word.endsWith("is")) {
    return word.slice(0, -1)
  }
  return word
}

/** `running` -> `runn` -> `run`; `created` -> `creat` stays (both sides stem the same way). */
const trimDouble = (word: string) =>
  word.length > 3 && word[word.length - 1] === word[word.length - 2] && !/[lsz]/.test(word[word.length - 1]!)
    ? word.slice(0, -1)
    : word

const isUpper = (c: number) => c >= 65 && c <= 90
const isLower = (c: number) => c >= 97 && c <= 122
const isDigit = (c: number) => c >= 48 && c <= 57

/** Lower-cased part -> its stem, or "" for a stop word; bounded, since texts come from servers. */
const known = new Map<string, string>()
const maxKnown = 50_000

const normalise = (part: string): string => {
  let word = known.get(part)
  if (word !== undefined) return word
  const lower = part.toLowerCase()
  word = (lower.length < 2 && !/[0-9]/.test(lower)) || stopWords.has(lower) ? "" : stem(lower)
  if (known.size < maxKnown) known.set(part, word)
  return word
}

/**
 * The words of a text, identifiers split (`getHTTPResponse` is get, HTTP,
 * response; digits apart; anything else separates), in order, stop words
 * left out, stemmed. A scan by character code: this runs over every tool
 * text at each index build.
 */
export const words = (text: string): Array<string> => {
  const out: Array<string> = []
  const emit = (from: number, to: number) => {
    const word = normalise(text.slice(from, to))
    if (word !== "") out.push(word)
  }
  const n = text.length
  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    let j = i + 1
    if (isDigit(c)) {
      while (j < n && isDigit(text.charCodeAt(j))) j++
    } else if (isLower(c)) {
      while (j < n && isLower(text.charCodeAt(j))) j++
    } else if (isUpper(c)) {
      while (j < n && isUpper(text.charCodeAt(j))) j++
      if (j < n && isLower(text.charCodeAt(j))) {
        // the last capital starts the next word: `HTTPResponse` is HTTP, Response
        if (j - 1 > i) emit(i, j - 1)
        i = j - 1
        while (j < n && isLower(text.charCodeAt(j))) j++
      }
    } else {
      i = j
      continue
    }
    emit(i, j)
    i = j
  }
  return out
}

/**
 * Words a request implies by its shape: an issue key (`ENG-123`, `PROJ-7`)
 * is an issue; a path or file name with an extension is a file; a URL is a
 * page.
 */
export const hints = (query: string): Array<string> => {
  const out: Array<string> = []
  if (/\b[A-Z][A-Z0-9]{1,9}-\d+\b/.test(query)) out.push("issue")
  if (/\b[\w-]+\.(?:json|ya?ml|md|txt|ts|js|py|csv|pdf|toml|log)\b/i.test(query)) out.push("file")
  if (/\bhttps?:\/\/|\b[\w-]+\.(?:com|org|net|io|dev)\b/i.test(query)) out.push("url", "page")
  return out
}

/** Text -> its words, for the texts of the tools indexed: a rebuild after one server's `list_changed` splits only what changed. */
const split = new Map<string, ReadonlyArray<string>>()
const maxSplit = 20_000

/** {@link words}, remembered per text (bounded: the cache starts over when full). */
export const wordsOf = (text: string): ReadonlyArray<string> => {
  let found = split.get(text)
  if (found === undefined) {
    if (split.size >= maxSplit) split.clear()
    found = words(text)
    split.set(text, found)
  }
  return found
}

/**
 * Words a person uses for the same action or thing. Each group is one
 * meaning; a word may stand in two groups (`open` a file, `open` a page).
 * Stemmed when the table is built.
 */
const groups: ReadonlyArray<ReadonlyArray<string>> = [
  [
    "create",
    "make",
    "new",
    "add",
    "generate",
    "insert",
    "register",
    "spawn",
    "start",
    "build",
    "compose",
    "draft",
    "open"
  ],
  [
    "delete",
    "remove",
    "erase",
    "drop",
    "destroy",
    "discard",
    "trash",
    "purge",
    "wipe",
    "unlink",
    "rm",
    "clear",
    "cancel"
  ],
  [
    "read",
    "get",
    "fetch",
    "retrieve",
    "show",
    "view",
    "display",
    "load",
    "obtain",
    "see",
    "look",
    "open",
    "inspect",
    "cat",
    "peek",
    "check"
  ],
  ["list", "enumerate", "browse", "catalog", "inventory", "ls", "overview", "every"],
  ["search", "find", "query", "lookup", "locate", "grep", "seek", "discover", "hunt", "match", "filter", "scan"],
  [
    "update",
    "edit",
    "modify",
    "change",
    "patch",
    "alter",
    "amend",
    "revise",
    "set",
    "adjust",
    "tweak",
    "replace",
    "fix"
  ],
  ["write", "save", "store", "persist", "put", "record", "dump", "output"],
  ["move", "rename", "relocate", "transfer", "mv"],
  ["copy", "duplicate", "clone", "cp", "fork"],
  ["run", "execute", "invoke", "launch", "perform", "trigger", "call", "exec", "dispatch"],
  ["send", "post", "publish", "message", "notify", "deliver", "dm", "ping", "broadcast", "share"],
  ["email", "mail", "gmail", "inbox", "message"],
  ["file", "document", "doc", "path"],
  ["directory", "folder", "dir"],
  ["issue", "ticket", "bug", "task", "card", "story", "defect", "problem", "todo"],
  ["pull", "pr", "merge", "mr"],
  ["repository", "repo", "project", "codebase", "source"],
  ["branch", "ref", "head"],
  ["commit", "revision", "changeset", "checkin", "sha"],
  ["diff", "difference", "compare", "delta", "changes"],
  ["screenshot", "capture", "snapshot", "picture", "image", "photo", "screen", "grab"],
  ["navigate", "goto", "go", "visit", "url", "open", "browse", "load", "link", "website", "site", "webpage", "address"],
  ["click", "press", "tap", "select", "choose", "pick"],
  ["type", "fill", "enter", "input", "key", "keyboard", "text", "form"],
  ["page", "tab", "browser", "window", "web"],
  ["database", "db", "sql", "table", "schema", "postgres", "sqlite", "mysql", "row", "record", "column"],
  ["user", "person", "member", "people", "account", "profile", "contact", "who", "owner"],
  ["comment", "reply", "note", "annotation", "remark", "respond", "discussion", "feedback"],
  ["label", "tag", "category", "topic"],
  ["close", "resolve", "finish", "complete", "done", "archive", "end", "exit", "quit", "shut"],
  ["wait", "sleep", "pause", "delay", "hold"],
  ["time", "clock", "date", "timezone", "now", "today", "hour"],
  ["weather", "forecast", "temperature", "rain", "climate"],
  ["memory", "knowledge", "graph", "entity", "relation", "remember", "fact", "observation", "recall", "forget"],
  ["calendar", "event", "meeting", "appointment", "schedule", "invite", "agenda"],
  ["channel", "conversation", "chat", "room", "thread", "slack"],
  ["size", "length", "count", "number", "total", "many", "big"],
  [
    "info",
    "information",
    "metadata",
    "detail",
    "stat",
    "status",
    "property",
    "attribute",
    "describe",
    "summary",
    "about"
  ],
  ["log", "history", "trail", "journal", "audit"],
  ["secret", "credential", "token", "password", "key", "auth"],
  ["download", "fetch", "pull", "save", "retrieve"],
  ["upload", "attach", "attachment", "push"],
  ["sum", "add", "plus", "calculate", "math", "arithmetic", "compute", "total"],
  ["echo", "repeat", "say", "parrot", "mirror", "back"],
  ["environment", "env", "variable", "config", "configuration", "setting"],
  ["tree", "hierarchy", "structure", "nested", "recursive", "outline"],
  ["element", "node", "component", "selector", "button", "link"],
  ["scroll", "swipe"],
  ["hover", "mouseover"],
  ["evaluate", "javascript", "script", "js", "code", "eval"],
  ["console", "devtool", "debug"],
  ["network", "request", "http", "traffic", "api"],
  ["star", "favorite", "bookmark", "like"],
  ["review", "approve", "approval", "feedback"],
  ["assign", "assignee", "owner", "responsible", "delegate"],
  ["release", "version", "tag", "ship"],
  ["workflow", "pipeline", "action", "ci", "job", "build", "deploy", "deployment", "run"],
  ["notification", "alert", "alarm", "warning", "incident"],
  ["content", "contents", "text", "body"],
  ["head", "first", "beginning", "top", "start"],
  ["tail", "last", "end", "bottom", "latest", "recent"],
  ["allowed", "permitted", "accessible", "permission", "access"],
  ["internet", "online", "web", "google"],
  ["map", "location", "place", "address", "direction", "route", "geocode", "coordinate", "nearby", "distance"],
  ["price", "cost", "billing", "invoice", "payment", "charge", "pay", "refund", "money"],
  ["customer", "client", "subscription", "subscriber", "buyer"],
  ["error", "exception", "crash", "incident", "failure", "stack", "trace"],
  ["metric", "dashboard", "monitor", "monitoring", "chart", "graph", "measure"],
  ["container", "docker", "pod", "kubernetes", "k8s", "cluster"],
  ["shell", "command", "terminal", "bash", "cli", "process"],
  ["resource", "asset"],
  ["prompt", "template"],
  ["sample", "sampling", "llm", "model", "completion", "ai"],
  ["long", "slow", "progress", "lengthy"],
  ["tiny", "small", "image", "icon"],
  ["annotation", "annotated", "hint"],
  ["structured", "json", "object"],
  ["embed", "embedded", "inline"],
  ["spreadsheet", "sheet", "excel", "csv", "cell"],
  ["folder", "drive", "storage", "bucket", "blob", "object"],
  ["team", "group", "organization", "org", "workspace"],
  ["word", "spelling", "phrase", "term"],
  ["translate", "translation", "language"],
  ["summarize", "summary", "digest", "tldr"],
  ["vector", "embedding", "semantic", "similar"],
  ["ask", "question", "elicit", "elicitation", "prompt"],
  ["upgrade", "install", "package", "dependency", "library", "npm", "pip"],
  ["test", "spec", "check", "verify", "validate", "lint"],
  ["previous", "back", "undo", "revert", "rollback", "restore"],
  ["forward", "next", "redo"],
  ["resize", "zoom", "dimension", "viewport"],
  ["drag", "drop"],
  ["dialog", "popup", "modal", "alert"],
  ["pdf", "print"],
  ["insight", "analysis", "analyze", "analytic", "report"],
  ["github", "gitlab", "bitbucket", "hosting", "repository"],
  ["user", "people", "person", "member", "someone", "somebody", "teammate", "colleague", "employee", "staff", "belong"],
  ["pull", "pr", "merge", "mr", "land", "propose", "integrate"],
  ["branch", "main", "master", "trunk", "line"],
  ["status", "state", "green", "pass", "passing", "result", "health", "check"],
  ["update", "touch", "modified", "modification", "edit", "change"],
  ["add", "leave", "append", "attach", "include", "put"],
  ["send", "tell", "inform", "announce", "say", "said", "post", "message"],
  ["reaction", "react", "emoji", "thumb", "thumbsup"],
  ["latitude", "longitude", "lat", "lng", "coordinate", "geocode", "gps", "street"],
  ["elevation", "altitude", "high", "height", "sea"],
  ["direction", "drive", "driving", "route", "travel", "commute", "walk", "transit", "trip"],
  ["distance", "far", "commute", "travel", "matrix"],
  ["delete", "forget", "erase", "remove"],
  ["search", "recall", "google", "look", "lookup", "seek"],
  ["browser", "chrome", "chromium", "headless", "firefox", "webkit", "tab", "page"],
  ["console", "print", "log", "stdout", "output", "runtime"],
  ["network", "request", "ajax", "xhr", "fetch", "call", "traffic"],
  ["performance", "perf", "fast", "speed", "slow", "profile", "trace", "paint", "lighthouse", "latency"],
  ["resize", "shrink", "width", "height", "mobile", "display", "viewport", "size"],
  ["upload", "attach", "cv", "resume", "submit"],
  ["option", "dropdown", "choice", "combobox", "select", "pick"],
  ["evaluate", "run", "execute", "eval", "script"],
  ["allowed", "may", "allow", "permitted", "touch"],
  ["wiki", "notion", "page", "confluence", "doc", "document", "note"],
  ["write", "jot", "note", "record", "save"],
  ["markdown", "md"],
  ["collection", "bucket", "table"],
  ["index", "speed", "faster", "lookup"],
  ["explain", "why", "plan", "slow"],
  ["process", "program", "app", "application", "running", "machine", "system"],
  ["kill", "terminate", "stop", "end", "halt", "abort", "runaway"],
  ["chart", "plot", "graph", "draw", "visualize", "visualise", "diagram", "picture"],
  ["pie", "slice", "share", "proportion", "split", "breakdown"],
  ["organization", "org", "hierarchy", "report", "whom", "reporting"],
  ["fishbone", "ishikawa", "cause", "root", "why"],
  ["scatter", "against", "correlation"],
  ["blame", "fault", "author", "annotate", "whose"],
  ["fetch", "grab", "download", "retrieve"],
  ["push", "publish", "upload", "origin", "remote"],
  ["status", "modified", "dirty", "checkout", "uncommitted"],
  ["tag", "label", "version", "release", "mark"],
  ["rebase", "replay", "replant", "reapply"],
  ["log", "output", "tail", "crash", "crashing"],
  ["scale", "replica", "copy", "copies", "instance"],
  ["port", "forward", "tunnel", "localhost", "reach"],
  ["node", "drain", "evacuate", "cordon", "maintenance", "worker"],
  ["flaky", "sometimes", "intermittent", "unstable", "inconsistent"],
  ["pipeline", "build", "run", "kick", "trigger"],
  ["cycle", "sprint", "iteration"],
  ["notification", "inbox", "badge", "alert", "seen", "unread"],
  ["transfer", "hand", "move", "reassign", "handover"],
  ["team", "squad", "group", "crew"],
  ["history", "audit", "trail", "edits", "changelog", "timeline"],
  ["relation", "depend", "dependency", "block", "blocked", "until", "relate", "link"],
  ["customer", "signup", "sign", "register", "account"],
  ["crawl", "spider", "scrape", "extract", "harvest"],
  ["research", "investigate", "study", "deep", "comprehensive"],
  ["think", "reason", "step", "plan", "sequential"],
  ["issue", "tracker", "jira", "linear", "agile", "ticket", "backlog"],
  ["cache", "cached", "redis", "memcache", "memcached", "entry"],
  ["vector", "pinecone", "semantic", "embedding", "meaning", "similarity", "close"],
  ["sheet", "spreadsheet", "grid", "airtable", "base", "row", "record", "lead"],
  ["column", "field", "property", "attribute"],
  ["error", "fail", "failed", "failure", "blew", "broke", "broken", "outage", "500", "bug"],
  ["sentry", "error", "exception", "crash", "issue", "prod", "production"],
  ["mongo", "mongodb", "nosql", "database", "db"],
  ["elastic", "elasticsearch", "mapping", "shape", "schema", "opensearch"],
  ["emulate", "pretend", "simulate", "mimic", "device", "iphone", "android", "throttle", "connection"],
  ["rerank", "reorder", "rank", "ranking", "sort", "relevance", "order"],
  ["funnel", "conversion", "lose", "stage", "step"],
  ["liquid", "gauge", "tank", "capacity", "percent", "percentage", "fill"],
  ["context", "switch", "kubeconfig", "cluster"],
  ["init", "initialize", "initialise", "start", "setup", "bootstrap"],
  ["clone", "download", "copy", "checkout"],
  ["archive", "shelve", "abandon", "shelf"],
  ["subscribe", "follow", "watch", "notify", "hear"],
  ["viewer", "whoami", "self", "identity", "logged", "current", "authenticated"],
  ["disconnect", "hang", "logout", "detach"],
  ["connect", "link", "relation", "relationship", "associate", "association"],
  ["pdf", "printable", "print", "export"],
  ["codegen", "record", "recording", "generate", "e2e", "spec", "test"],
  ["place", "restaurant", "shop", "store", "cafe", "ramen", "business", "around", "near", "nearby"],
  ["hour", "opening", "review", "rating", "detail"],
  ["thread", "reply", "answer", "respond", "under"],
  ["profile", "title", "job", "timezone", "bio"],
  ["knowledge", "memory", "remember", "stored", "recall", "know"],
  ["entity", "person", "bob", "thing", "object"],
  ["config", "configuration", "setting", "jest", "dotfile", "rc"],
  ["metadata", "info", "stat", "size", "big", "when", "modified", "created"],
  ["move", "shift", "lane", "column", "group", "stage"],
  ["visitor", "traffic", "analytics", "pageview"],
  ["organization", "company", "workspace", "org"]
]

/** Stemmed word -> the other stemmed words of its groups. */
export const synonyms: ReadonlyMap<string, ReadonlyArray<string>> = (() => {
  const table = new Map<string, Set<string>>()
  for (const group of groups) {
    const stemmed = [...new Set(group.map((word) => stem(word.toLowerCase())))]
    for (const word of stemmed) {
      const set = table.get(word) ?? new Set<string>()
      for (const other of stemmed) if (other !== word) set.add(other)
      table.set(word, set)
    }
  }
  return new Map([...table].map(([word, set]) => [word, [...set]]))
})()
