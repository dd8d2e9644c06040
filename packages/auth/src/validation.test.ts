/**
 * Problem documents clients can act on (docs/reference/conventions.md#field-errors): every field error of a request in one
 * answer, each with a stable `code` and an English message.
 */
import { z } from '@hono/zod-openapi'
import { describe, expect, it } from 'vitest'
import { harness, PASSWORD } from '../test/harness.js'
import { FIELD_ERROR_CODES, fieldErrorOf } from './validation.js'

type Problem = { status: number; errors: { path: string; code: string; message: string }[] }

const signup = async (json: unknown) => {
  const h = harness()
  const res = await h.request('POST', '/auth/signup', { json })
  expect(res.status).toBe(400)
  return { h, body: (await res.json()) as Problem }
}

describe('errors[] of a failed request', () => {
  it('names every field error at once, a common password beside a bad name and email', async () => {
    const { h, body } = await signup({ name: '', email: 'not-an-email', password: 'password123' })
    expect(body.errors).toEqual([
      { path: 'name', code: 'too_short', message: 'Name must be at least 1 character' },
      { path: 'email', code: 'invalid_email', message: 'Email must be an email address' },
      { path: 'password', code: 'common_password', message: 'Password is one of the most common passwords' },
    ])
    expect((await h.counts())?.users).toBe(0)
  })

  it('reports the email as password beside the other errors', async () => {
    const { body } = await signup({ name: 'n'.repeat(101), email: 'ada.lovelace@example.com', password: 'Ada.Lovelace' })
    expect(body.errors).toEqual([
      { path: 'name', code: 'too_long', message: 'Name must be at most 100 characters' },
      { path: 'password', code: 'password_is_email', message: expect.stringMatching(/^Password must not be your email/) },
    ])
  })

  it('tells a missing field from one of the wrong type, and text no store can hold', async () => {
    const { body } = await signup({ email: 42, password: 'abc\u0000defghij' })
    expect(body.errors).toEqual([
      { path: 'name', code: 'required', message: 'Name is required' },
      { path: 'email', code: 'invalid_type', message: 'Email must be a string' },
      { path: 'password', code: 'unsupported_text', message: expect.stringContaining('NUL') },
    ])
  })

  it('checks the common list only once the length is right', async () => {
    const { body } = await signup({ name: 'Ada', email: 'ada@example.com', password: 'abc' })
    expect(body.errors).toEqual([{ path: 'password', code: 'too_short', message: 'Password must be at least 8 characters' }])
  })

  it.each([[['Ada']], [null], ['Ada'], [42]])('answers the body %j, not an object, with one entry for the body', async (json) => {
    const { body } = await signup(json)
    expect(body.errors).toEqual([{ path: '', code: 'invalid_type', message: 'The body must be a JSON object' }])
  })

  it('says which new password on change-password is the account email, with its code', async () => {
    const h = harness()
    const { accessToken } = await h.signup('grace.hopper@example.com')
    const res = await h.request('POST', '/auth/change-password', {
      json: { currentPassword: PASSWORD, newPassword: 'GRACE.HOPPER' },
      headers: { Authorization: `Bearer ${accessToken}` },
    })
    expect(res.status).toBe(400)
    expect(((await res.json()) as Problem).errors).toEqual([
      { path: 'newPassword', code: 'password_is_email', message: expect.any(String) },
    ])
  })
})

describe('fieldErrorOf', () => {
  const errorsOf = (schema: z.ZodType, input: unknown) => {
    const result = schema.safeParse(input)
    if (result.success) throw new Error('expected a failure')
    return result.error.issues.map((issue) => fieldErrorOf(issue as z.core.$ZodIssue, input))
  }

  it('writes English for every zod issue, with a code from the documented list', () => {
    const schema = z
      .object({
        count: z.number().int().min(1).max(9),
        ratio: z.number().gt(0),
        tags: z.array(z.string()).min(2),
        kind: z.enum(['a', 'b']),
        id: z.uuid(),
        createdAt: z.string(),
      })
      .strict()
    const errors = errorsOf(schema, { count: 10, ratio: 0, tags: ['x'], kind: 'c', id: 'no', createdAt: 1, extra: true })
    expect(errors).toEqual([
      { path: 'count', code: 'too_big', message: 'Count must be at most 9' },
      { path: 'ratio', code: 'too_small', message: 'Ratio must be greater than 0' },
      { path: 'tags', code: 'too_short', message: 'Tags must be at least 2 items' },
      { path: 'kind', code: 'invalid_value', message: 'Kind must be one of "a", "b"' },
      { path: 'id', code: 'invalid_format', message: 'Id must be a UUID' },
      { path: 'createdAt', code: 'invalid_type', message: 'Created at must be a string' },
      { path: '', code: 'unknown_field', message: 'Unknown field: extra' },
    ])
    for (const error of errors) expect(FIELD_ERROR_CODES).toContain(error.code)
    expect(errorsOf(z.object({ n: z.number().int() }), { n: 1.5 })).toEqual([
      { path: 'n', code: 'invalid_type', message: 'N must be an integer' },
    ])
  })

  it("keeps a refinement's own message and code, and calls one without a code `invalid`", () => {
    const schema = z.object({
      a: z.string().refine(() => false, { message: 'A is taken', params: { code: 'taken' } }),
      b: z.string().refine(() => false, 'B is odd'),
    })
    expect(errorsOf(schema, { a: 'x', b: 'y' })).toEqual([
      { path: 'a', code: 'taken', message: 'A is taken' },
      { path: 'b', code: 'invalid', message: 'B is odd' },
    ])
  })
})
