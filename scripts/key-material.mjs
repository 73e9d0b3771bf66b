// Key material must never be committed nor packed: a file named like a key (`*.key`, `*.pem`,
// `id_rsa`, ...) or holding a PEM private key. Used by `scripts/pack-check.mjs` (on the files git
// tracks and on every tarball's file list) and `scripts/pack.mjs`.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const keyName = /(^|\/)(id_(rsa|dsa|ecdsa|ed25519)|[^/]*\.(key|pem|p12|pfx|jks|keystore))$/i
const pemPrivateKey = /-----BEGIN [A-Z ]*PRIVATE KEY-----/

/** The paths among `files` (relative to `root`) that hold or are named like key material. */
export const keyMaterial = (root, files) =>
  files.filter((file) => {
    if (keyName.test(file)) return true
    const full = path.join(root, file)
    try {
      const stat = fs.statSync(full)
      if (!stat.isFile() || stat.size > 1024 * 1024) return false
      return pemPrivateKey.test(fs.readFileSync(full, "latin1"))
    } catch {
      return false
    }
  })

/** The files git tracks under `root`. */
export const trackedFiles = (root) =>
  execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" }).split("\0").filter((f) => f !== "")

/** Throws naming every tracked file that is key material. */
export const checkRepository = (root) => {
  const found = keyMaterial(root, trackedFiles(root))
  if (found.length > 0) {
    throw new Error(`key material is committed (remove it and keep it out with .gitignore): ${found.join(", ")}`)
  }
}
