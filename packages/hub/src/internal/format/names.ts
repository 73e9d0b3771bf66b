/**
 * Provider-safe tool names: `^[a-zA-Z0-9_-]{1,64}$` (OpenAI, Anthropic and
 * Gemini all accept it).
 *
 * @since 0.2.0
 */

import { sha256Hex } from "../sha256.js"

const safe = /^[a-zA-Z0-9_-]{1,64}$/

/** @internal */
export const isSafeName = (name: string): boolean => safe.test(name)

// 12 hex digits (48 bits) of SHA-256: a stable suffix for names that had to be shortened, that no
// server can pick a second name to match (a 32-bit hash can be collided in under a second)
const hash = (text: string): string => sha256Hex(text).slice(0, 12)

/** @internal */
export const sanitizeName = (name: string): string => {
  if (isSafeName(name)) return name
  const replaced = name.replace(/[^a-zA-Z0-9_-]/g, "_")
  if (replaced.length === 0) return "tool"
  if (replaced.length <= 64) return replaced
  const suffix = `_${hash(name)}`
  return replaced.slice(0, 64 - suffix.length) + suffix
}
