/**
 * Scope selection (MCP 2025-11-25 "Scope Selection Strategy"): the `scope`
 * of the `WWW-Authenticate` challenge, else every scope of the
 * protected-resource metadata's `scopes_supported`, else no `scope` at all.
 * Scopes the app configured are added to the challenge's. A step-up after
 * `403 insufficient_scope` asks for the union of what was granted and what
 * the challenge names.
 *
 * `offline_access` (SEP-2207) is added for flows that can use a refresh
 * token when the authorization server lists it in `scopes_supported`, and
 * only when some scope is requested at all (an empty request keeps the
 * server's defaults).
 *
 * @since 0.1.0
 */

/**
 * Splits a space-separated scope string.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (scope: string | undefined): ReadonlyArray<string> =>
  scope === undefined ? [] : scope.split(/\s+/).filter((s) => s !== "")

/**
 * Joins scopes for a request; `undefined` when there are none (the
 * parameter is then omitted).
 *
 * @since 0.1.0
 * @category parsing
 */
export const format = (scopes: ReadonlyArray<string>): string | undefined =>
  scopes.length === 0 ? undefined : scopes.join(" ")

/**
 * Every scope of every set, once, in first-seen order.
 *
 * @since 0.1.0
 * @category combinators
 */
export const union = (...sets: ReadonlyArray<ReadonlyArray<string>>): ReadonlyArray<string> => [...new Set(sets.flat())]

/**
 * Whether `granted` contains every scope of `required`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const covers = (granted: ReadonlyArray<string>, required: ReadonlyArray<string>): boolean =>
  required.every((s) => granted.includes(s))

/**
 * @since 0.1.0
 * @category models
 */
export interface SelectionInput {
  /** The `scope` parameter of the challenge. */
  readonly challenge?: string | undefined
  /** The protected-resource metadata's `scopes_supported`. */
  readonly scopesSupported?: ReadonlyArray<string> | undefined
  /** Scopes the app always asks for. */
  readonly configured?: ReadonlyArray<string> | undefined
}

/**
 * The scopes of a first authorization.
 *
 * @since 0.1.0
 * @category selection
 */
export const select = (input: SelectionInput): ReadonlyArray<string> => {
  const chosen = union(parse(input.challenge), input.configured ?? [])
  return chosen.length > 0 ? chosen : [...(input.scopesSupported ?? [])]
}

/**
 * Adds `offline_access` when the authorization server supports it and
 * something is requested.
 *
 * @since 0.1.0
 * @category selection
 */
export const withOfflineAccess = (
  scopes: ReadonlyArray<string>,
  authorizationServerScopes: ReadonlyArray<string> | undefined
): ReadonlyArray<string> =>
  scopes.length > 0 && authorizationServerScopes?.includes("offline_access") === true
    ? union(scopes, ["offline_access"])
    : scopes
