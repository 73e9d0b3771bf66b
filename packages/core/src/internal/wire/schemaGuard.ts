/**
 * A compiled type guard for a schema's type side: the same answer as
 * `Schema.is(schema)`, without the parse machinery (`Schema.is` builds an
 * output object, an `Either` per field and issue arrays for every value it
 * checks; every result of every call is checked).
 *
 * Only the shapes the wire schemas are made of are compiled (literals,
 * keywords, structs, records, arrays, unions, recursion, refinements of
 * primitives); any other node (a declaration such as `JsonObject`, a
 * template literal, a node with parse options of its own, ...) is checked by
 * `Schema.is` of that node, so the answer never differs from `Schema.is`.
 *
 * @internal
 */
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"

/** @internal */
export type Guard = (u: unknown) => boolean

// the options `Schema.is` parses with: a refinement's filter sees the same
const isOptions: AST.ParseOptions = { exact: true }

const always: Guard = () => true

const isRecord = (u: unknown): u is Record<PropertyKey, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const hasOwn = (u: object, key: PropertyKey) => Object.prototype.hasOwnProperty.call(u, key)

/** Checked by `Schema.is` itself: a node this module does not compile. */
const fallback = (ast: AST.AST): Guard => {
  const is = ParseResult.is(Schema.make(ast))
  return (u) => is(u)
}

/** Nodes whose parse on the type side returns the input itself (a refinement's filter then sees the input). */
const returnsInput = (ast: AST.AST): boolean => {
  switch (ast._tag) {
    case "Literal":
    case "UndefinedKeyword":
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "Enums":
      return true
    case "Refinement":
      return returnsInput(ast.from)
    default:
      return false
  }
}

const hasOwnParseBehaviour = (ast: AST.AST): boolean =>
  Option.isSome(AST.getParseOptionsAnnotation(ast)) || Option.isSome(AST.getDecodingFallbackAnnotation(ast))

/**
 * The guard of `schema`'s type side.
 *
 * @internal
 */
export const make = <A, I, R>(schema: Schema.Schema<A, I, R>): (u: unknown) => u is A => {
  const guard = compile(AST.typeAST(schema.ast), new Map())
  return guard as (u: unknown) => u is A
}

const compile = (ast: AST.AST, memo: Map<AST.AST, Guard>): Guard => {
  const known = memo.get(ast)
  if (known !== undefined) return known
  // recursion: a node refers to itself through `Suspend`; the placeholder calls the finished guard
  // eslint-disable-next-line prefer-const -- read by a callback made before it is assigned
  let done: Guard | undefined
  memo.set(ast, (u) => done!(u))
  done = hasOwnParseBehaviour(ast) ? fallback(ast) : compileNode(ast, memo)
  memo.set(ast, done)
  return done
}

const compileNode = (ast: AST.AST, memo: Map<AST.AST, Guard>): Guard => {
  switch (ast._tag) {
    case "Literal": {
      const literal = ast.literal
      return (u) => u === literal
    }
    case "UndefinedKeyword":
      return (u) => u === undefined
    case "NeverKeyword":
      return () => false
    case "UnknownKeyword":
    case "AnyKeyword":
    case "VoidKeyword":
      return always
    case "StringKeyword":
      return (u) => typeof u === "string"
    case "NumberKeyword":
      return (u) => typeof u === "number"
    case "BooleanKeyword":
      return (u) => typeof u === "boolean"
    case "ObjectKeyword":
      return (u) => (typeof u === "object" && u !== null) || typeof u === "function"
    case "Enums": {
      const values = ast.enums.map(([, value]) => value)
      return (u) => {
        for (let i = 0; i < values.length; i++) if (values[i] === u) return true
        return false
      }
    }
    case "Suspend":
      return compile(ast.f(), memo)
    case "Refinement": {
      if (!returnsInput(ast.from)) return fallback(ast)
      const from = compile(ast.from, memo)
      return (u) => from(u) && Option.isNone(ast.filter(u, isOptions, ast))
    }
    case "Union": {
      // a member offering literals through a surrogate is matched by them in `Schema.is`: leave it to that
      if (
        ast.types.some((member) => member._tag === "Declaration" && Option.isSome(AST.getSurrogateAnnotation(member)))
      ) {
        return fallback(ast)
      }
      const members = ast.types.map((member) => compile(member, memo))
      return (u) => {
        for (let i = 0; i < members.length; i++) if (members[i](u)) return true
        return false
      }
    }
    case "TupleType": {
      if (ast.rest.length > 1) return fallback(ast)
      const elements = ast.elements.map((element) => compile(element.type, memo))
      const optional = ast.elements.map((element) => element.isOptional)
      const required = optional.filter((isOptional) => !isOptional).length
      const rest = ast.rest.length === 1 ? compile(ast.rest[0].type, memo) : undefined
      return (u) => {
        if (!Array.isArray(u) || u.length < required) return false
        if (rest === undefined && u.length > elements.length) return false
        for (let i = 0; i < elements.length; i++) {
          if (i >= u.length) {
            if (optional[i]) continue
            return false
          }
          if (!elements[i](u[i])) return false
        }
        if (rest !== undefined) {
          for (let i = elements.length; i < u.length; i++) if (!rest(u[i])) return false
        }
        return true
      }
    }
    case "TypeLiteral": {
      if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) {
        return (u) => u !== null && u !== undefined
      }
      if (ast.indexSignatures.some((index) => index.parameter._tag !== "StringKeyword")) return fallback(ast)
      const names = ast.propertySignatures.map((property) => property.name)
      const optional = ast.propertySignatures.map((property) => property.isOptional)
      const types = ast.propertySignatures.map((property) => compile(property.type, memo))
      const values = ast.indexSignatures.map((index) => compile(index.type, memo))
      return (u) => {
        if (!isRecord(u)) return false
        for (let i = 0; i < names.length; i++) {
          const name = names[i]
          if (!hasOwn(u, name)) {
            if (optional[i]) continue
            return false
          }
          if (!types[i](u[name])) return false
        }
        if (values.length > 0) {
          // every own string key's value, declared ones too, must fit each string index signature
          const keys = Object.keys(u)
          for (let v = 0; v < values.length; v++) {
            for (let k = 0; k < keys.length; k++) if (!values[v](u[keys[k]])) return false
          }
        }
        return true
      }
    }
    default:
      return fallback(ast)
  }
}
