import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ServerConfigError } from "./errors.js"

/** `${NAME}` or `${NAME:-default}`; a default may be empty but holds no `}`. */
const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/**
 * A variable from the current `ConfigProvider`; unset and empty read alike
 * (as in a shell's `:-`). Names of `Object.prototype`'s members
 * (`__proto__`, `constructor`, `toString`, ...) are unset: a provider over a
 * plain object would read the prototype's member, not a variable.
 */
const lookup = (variable: string): Effect.Effect<Option.Option<string>> =>
  variable in Object.prototype ? Effect.succeed(Option.none()) : Config.option(Config.string(variable)).pipe(
    Effect.map(Option.filter((value) => value !== "")),
    Effect.orElseSucceed(() => Option.none<string>())
  )

/**
 * Replaces each reference in `text` by its variable's value, or its default;
 * a variable with neither fails, naming the key and the variable (never a value).
 */
export const expandString = (
  text: string,
  server: string,
  key: string,
  /** collects what each variable expanded to (a secret to mask wherever the server echoes it) */
  expanded?: Array<string>
): Effect.Effect<string, ServerConfigError> => {
  const matches = [...text.matchAll(reference)]
  if (matches.length === 0) return Effect.succeed(text)
  return Effect.map(
    Effect.forEach(matches, (match) =>
      Effect.flatMap(
        lookup(match[1]!),
        Option.match({
          onSome: (value) => {
            expanded?.push(value)
            return Effect.succeed(value)
          },
          onNone: () =>
            match[2] !== undefined
              ? Effect.succeed(match[2])
              : Effect.fail(new ServerConfigError({ server, key, reason: `\${${match[1]}} is not set` }))
        })
      )),
    (values) => {
      let i = 0
      return text.replace(reference, () => values[i++]!)
    }
  )
}

/** Expands every string inside a JSON value, keeping its shape. */
export const expandDeep = (value: unknown, server: string, key: string): Effect.Effect<unknown, ServerConfigError> => {
  if (typeof value === "string") return expandString(value, server, key)
  if (Array.isArray(value)) return Effect.forEach(value, (item, i) => expandDeep(item, server, `${key}.${i}`))
  if (typeof value === "object" && value !== null) {
    return Effect.all(
      Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandDeep(v, server, `${key}.${k}`)] as const))
    )
  }
  return Effect.succeed(value)
}
