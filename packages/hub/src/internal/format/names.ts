/**
 * Provider-safe tool names: `^[a-zA-Z0-9_-]{1,64}$` (OpenAI, Anthropic and
 * Gemini all accept it).
 *
 * @since 0.2.0
 */

const safe = /^[a-zA-Z0-9_-]{1,64}$/

/** @internal */
export const isSafeName = (name: string): boolean => safe.test(name)

// FNV-1a, 32 bits: a short stable suffix for names that had to be shortened.
const hash = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(36)
}

/** @internal */
export const sanitizeName = (name: string): string => {
  if (isSafeName(name)) return name
  const replaced = name.replace(/[^a-zA-Z0-9_-]/g, "_")
  if (replaced.length === 0) return "tool"
  if (replaced.length <= 64) return replaced
  const suffix = `_${hash(name)}`
  return replaced.slice(0, 64 - suffix.length) + suffix
}
