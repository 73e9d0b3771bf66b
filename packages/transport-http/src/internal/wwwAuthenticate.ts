import type { Challenge } from "../HttpAuth.js"

const tokenChar = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/
const token68Char = /[A-Za-z0-9\-._~+/]/

/**
 * Reads a `WWW-Authenticate` header value (RFC 9110 §11.6.1): a comma
 * separated list of challenges, each a scheme followed by a token68 or by
 * `name=value` parameters (values are tokens or quoted strings). Parameter
 * names are lower-cased. Unreadable input yields the challenges read so far.
 *
 * @internal
 */
export const parse = (header: string): Array<Challenge> => {
  const challenges: Array<Challenge> = []
  if (typeof header !== "string") return challenges
  let i = 0
  const n = header.length
  const skipSpaces = () => {
    while (i < n && (header[i] === " " || header[i] === "\t")) i++
  }
  const skipSeparators = () => {
    while (i < n && (header[i] === " " || header[i] === "\t" || header[i] === ",")) i++
  }
  const readToken = (): string => {
    const start = i
    while (i < n && tokenChar.test(header[i]!)) i++
    return header.slice(start, i)
  }
  const readQuoted = (): string => {
    i++ // opening quote
    let value = ""
    while (i < n && header[i] !== "\"") {
      if (header[i] === "\\" && i + 1 < n) i++
      value += header[i]
      i++
    }
    i++ // closing quote
    return value
  }
  // a parameter starts here when a token is followed by "=" (and not by a second "=" of token68 padding)
  const paramAhead = (): boolean => {
    let j = i
    while (j < n && tokenChar.test(header[j]!)) j++
    if (j === i) return false
    while (j < n && (header[j] === " " || header[j] === "\t")) j++
    return header[j] === "=" && header[j + 1] !== "="
  }
  const token68Ahead = (): string | undefined => {
    let j = i
    while (j < n && token68Char.test(header[j]!)) j++
    if (j === i) return undefined
    while (j < n && header[j] === "=") j++
    let k = j
    while (k < n && (header[k] === " " || header[k] === "\t")) k++
    if (k < n && header[k] !== ",") return undefined
    const value = header.slice(i, j)
    i = k
    return value
  }

  while (i < n) {
    skipSeparators()
    const scheme = readToken()
    if (scheme === "") break
    const params: Record<string, string> = {}
    let token68: string | undefined
    skipSpaces()
    if (!paramAhead()) token68 = token68Ahead()
    if (token68 === undefined) {
      while (i < n) {
        skipSpaces()
        if (!paramAhead()) break
        const name = readToken().toLowerCase()
        skipSpaces()
        i++ // "="
        skipSpaces()
        const value = header[i] === "\"" ? readQuoted() : readToken()
        // own keys only: a parameter named `constructor` or `__proto__` is data, not a prototype
        if (!Object.hasOwn(params, name)) {
          Object.defineProperty(params, name, { value, enumerable: true, writable: true })
        }
        skipSpaces()
        if (header[i] !== ",") break
        i++
        skipSpaces()
        if (!paramAhead()) break
      }
    }
    challenges.push(token68 === undefined ? { scheme, params } : { scheme, params, token68 })
    if (i < n && header[i] !== "," && !tokenChar.test(header[i]!)) break
  }
  return challenges
}
