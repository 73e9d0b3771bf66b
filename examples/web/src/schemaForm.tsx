/**
 * A form from a tool's `inputSchema` (flat objects: string, number, integer,
 * boolean, enum; anything else is edited as JSON).
 */
import * as React from "react"

type Json = { readonly [k: string]: unknown }

interface FieldSpec {
  readonly name: string
  readonly kind: "string" | "number" | "integer" | "boolean" | "enum" | "json"
  readonly required: boolean
  readonly description: string | undefined
  readonly options: ReadonlyArray<string>
}

export const fieldsOf = (schema: Json | undefined): ReadonlyArray<FieldSpec> => {
  const properties = (schema?.properties ?? {}) as Record<string, Json>
  const required = new Set((schema?.required ?? []) as ReadonlyArray<string>)
  return Object.entries(properties).map(([name, property]) => {
    const type = property.type
    const kind = Array.isArray(property.enum) ?
      "enum" :
      type === "string" || type === "number" || type === "integer" || type === "boolean"
      ? type
      : "json"
    return {
      name,
      kind,
      required: required.has(name),
      description: typeof property.description === "string" ? property.description : undefined,
      options: Array.isArray(property.enum) ? property.enum.map(String) : []
    }
  })
}

const parse = (field: FieldSpec, raw: string | boolean): { value?: unknown; error?: string } => {
  if (field.kind === "boolean") return { value: raw === true }
  const text = String(raw)
  if (text === "") return field.required ? { error: "required" } : {}
  switch (field.kind) {
    case "number":
    case "integer": {
      const n = Number(text)
      if (Number.isNaN(n) || (field.kind === "integer" && !Number.isInteger(n))) return { error: `not a ${field.kind}` }
      return { value: n }
    }
    case "json":
      try {
        return { value: JSON.parse(text) }
      } catch {
        return { error: "not JSON" }
      }
    default:
      return { value: text }
  }
}

export const SchemaForm = (props: {
  readonly schema: Json | undefined
  readonly submitLabel: string
  readonly idPrefix: string
  readonly onSubmit: (values: Record<string, unknown>) => void
}) => {
  const fields = fieldsOf(props.schema)
  const [raw, setRaw] = React.useState<Record<string, string | boolean>>({})
  const [errors, setErrors] = React.useState<Record<string, string>>({})
  const submit = (event: React.FormEvent) => {
    event.preventDefault()
    const values: Record<string, unknown> = {}
    const found: Record<string, string> = {}
    for (const field of fields) {
      const parsed = parse(field, raw[field.name] ?? (field.kind === "boolean" ? false : ""))
      if (parsed.error !== undefined) found[field.name] = parsed.error
      else if ("value" in parsed) values[field.name] = parsed.value
    }
    setErrors(found)
    if (Object.keys(found).length === 0) props.onSubmit(values)
  }
  return (
    <form className="schema-form" onSubmit={submit}>
      {fields.map((field) => {
        const id = `${props.idPrefix}-${field.name}`
        const set = (value: string | boolean) => setRaw((r) => ({ ...r, [field.name]: value }))
        return (
          <label key={field.name} htmlFor={id}>
            <span>{field.name}{field.required ? " *" : ""}</span>
            {field.kind === "boolean" ?
              (
                <input
                  id={id}
                  type="checkbox"
                  checked={raw[field.name] === true}
                  onChange={(e) => set(e.target.checked)}
                />
              ) :
              field.kind === "enum" ?
              (
                <select id={id} value={String(raw[field.name] ?? "")} onChange={(e) => set(e.target.value)}>
                  <option value="" />
                  {field.options.map((o) => <option key={o} value={o}>{o}</option>)}
                </select>
              ) :
              (
                <input
                  id={id}
                  name={field.name}
                  type={field.kind === "number" || field.kind === "integer" ? "number" : "text"}
                  value={String(raw[field.name] ?? "")}
                  onChange={(e) => set(e.target.value)}
                />
              )}
            {field.description !== undefined && <small>{field.description}</small>}
            {errors[field.name] !== undefined && <em className="error">{errors[field.name]}</em>}
          </label>
        )
      })}
      <button type="submit">{props.submitLabel}</button>
    </form>
  )
}
