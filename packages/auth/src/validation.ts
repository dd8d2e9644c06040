/**
 * Failed schemas as clients can act on them (docs/reference/conventions.md#field-errors): one 400 with every field error of the
 * request, each with a stable `code` and an English `message`. Zod's own messages ("Too small:
 * expected string to have >=1 characters") are replaced; a refinement that names its code in
 * `params.code` keeps its own message.
 */
import type { Hook } from '@hono/zod-openapi'
import type { Context, Env } from 'hono'
import type { z } from 'zod'
import { AuthError, type FieldError } from './errors.js'

/**
 * The codes of `errors[]` entries. An app's own refinement may name others in `params.code`;
 * one that names none gets `invalid`.
 */
export const FIELD_ERROR_CODES = [
  'required',
  'invalid_type',
  'too_short',
  'too_long',
  'too_small',
  'too_big',
  'invalid_email',
  'invalid_format',
  'invalid_value',
  'unknown_field',
  'unsupported_text',
  'common_password',
  'breached_password',
  'password_is_email',
  'wrong_password',
  'wrong_code',
  'invalid',
] as const

export type FieldErrorCode = (typeof FIELD_ERROR_CODES)[number]

/** Most entries of one answer's `errors[]`: a body with thousands of bad fields gets the first ones. */
export const MAX_FIELD_ERRORS = 100

/** The params a refinement passes to name its code: `.refine(ok, { message, params: fieldCode('too_short') })`. */
export const fieldCode = (code: FieldErrorCode) => ({ code })

/** `currentPassword` → `Current password`; the body itself → `The body`. */
const labelOf = (path: readonly PropertyKey[]): string => {
  const name = [...path].reverse().find((segment): segment is string => typeof segment === 'string')
  if (name === undefined) return path.length === 0 ? 'The body' : 'Each item'
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** `1 character`, `8 characters`. */
export const plural = (n: number | bigint, one: string) => `${n} ${one}${n === 1 || n === 1n ? '' : 's'}`

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'an array',
}

/** The value a path names in the input, or `undefined`. */
const valueAt = (input: unknown, path: readonly PropertyKey[]): unknown => {
  let value = input
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined
    value = Object.hasOwn(value, segment) ? (value as Record<PropertyKey, unknown>)[segment] : undefined
  }
  return value
}

const bound = (issue: { origin: string; inclusive?: boolean }, n: number | bigint, side: 'least' | 'most') => {
  const strict = issue.inclusive === false
  const unit = issue.origin === 'string' ? 'character' : issue.origin === 'array' || issue.origin === 'set' ? 'item' : null
  // A count is whole: "more than 2 items" is "at least 3 items".
  if (unit) return `at ${side} ${plural(strict ? Number(n) + (side === 'least' ? 1 : -1) : n, unit)}`
  return strict ? `${side === 'least' ? 'greater' : 'less'} than ${n}` : `at ${side} ${n}`
}

const isLength = (origin: string) => origin === 'string' || origin === 'array' || origin === 'set'

/** One zod issue as an `errors[]` entry; `input` is what the client sent, to tell a missing field from a wrong one. */
export const fieldErrorOf = (issue: z.core.$ZodIssue, input: unknown): FieldError => {
  const path = issue.path.map(String).join('.')
  const label = labelOf(issue.path)
  const entry = (code: FieldErrorCode | string, message: string): FieldError => ({ path, code, message })
  switch (issue.code) {
    case 'custom': {
      const code = (issue.params as { code?: unknown } | undefined)?.code
      return entry(typeof code === 'string' ? code : 'invalid', issue.message)
    }
    case 'invalid_type':
      if (valueAt(input, issue.path) === undefined) return entry('required', `${label} is required`)
      return entry('invalid_type', `${label} must be ${ARTICLE[issue.expected] ?? issue.expected}`)
    case 'too_small':
      return entry(isLength(issue.origin) ? 'too_short' : 'too_small', `${label} must be ${bound(issue, issue.minimum, 'least')}`)
    case 'too_big':
      return entry(isLength(issue.origin) ? 'too_long' : 'too_big', `${label} must be ${bound(issue, issue.maximum, 'most')}`)
    case 'invalid_format':
      if (issue.format === 'email') return entry('invalid_email', `${label} must be an email address`)
      // A pattern given a message of its own (`.regex(re, 'Code must be 6 digits')`) keeps it; zod's says "Invalid string".
      if (issue.format === 'regex')
        return entry('invalid_format', issue.message.startsWith('Invalid') ? `${label} has the wrong format` : issue.message)
      return entry('invalid_format', `${label} must be ${issue.format === 'uuid' ? 'a UUID' : `a valid ${issue.format}`}`)
    case 'invalid_value':
      return entry('invalid_value', `${label} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`)
    case 'unrecognized_keys':
      return entry('unknown_field', `Unknown ${issue.keys.length === 1 ? 'field' : 'fields'}: ${issue.keys.join(', ')}`)
    default:
      return entry('invalid', `${label} is not valid`)
  }
}

/** The 400 of one field error found after the schema passed (a check that needs the database). */
export const fieldFailure = (path: string, code: FieldErrorCode, message: string): AuthError =>
  new AuthError('validation_failed', { detail: 'The request does not match the schema.', errors: [{ path, code, message }] })

/**
 * The validation hook: every failed schema becomes one 400 problem document whose `errors[]`
 * holds every field error of the request. Pass it as `defaultHook` to your own `OpenAPIHono`
 * so your routes answer the same way.
 *
 * @example
 * const app = new OpenAPIHono({ defaultHook: validationHook })
 */
export const validationHook: Hook<unknown, Env, string, unknown> = (result) => {
  if (result.success) return
  // @hono/zod-validator passes what the client sent as `data` on failure too; its type says otherwise.
  const sent = (result as { data?: unknown }).data
  throw new AuthError('validation_failed', {
    detail: 'The request does not match the schema.',
    errors: result.error.issues.slice(0, MAX_FIELD_ERRORS).map((issue) => fieldErrorOf(issue as z.core.$ZodIssue, sent)),
  })
}

/**
 * The query as every validator of a query reads it, the library's and an application's alike
 * (Hono's, which `@hono/zod-openapi` uses, the route builders' own): a parameter sent once is its
 * string, one sent several times the array of its values, so a schema that takes one value
 * refuses a repeated one with 400 instead of picking one of them
 * (docs/reference/conventions.md#repeated-query-parameters).
 */
export const sentQuery = (c: Context): Record<string, string | string[] | undefined> =>
  Object.fromEntries(Object.entries(c.req.queries()).map(([key, values]) => [key, values.length === 1 ? values[0] : values]))
