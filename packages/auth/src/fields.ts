/**
 * The zod fields of the auth routes' bodies: text every store can hold, lengths in code points,
 * the email and the passwords. Each one validates the request, types the handler and describes
 * the field in the OpenAPI document.
 */

import { z } from '@hono/zod-openapi'
import { COMMON_PASSWORD, codePoints, isCommonPassword } from './password.js'
import { fieldCode, plural } from './validation.js'

// A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * `true` for text every store can hold. PostgreSQL refuses U+0000 in `text` and cannot encode a
 * lone surrogate as UTF-8, so either one would turn into a 500 there and a stored oddity in
 * SQLite; every string field is checked with this, on every store alike (docs/reference/operations.md#unstorable-text).
 */
export const isStorableText = (s: string): boolean => !s.includes('\u0000') && !LONE_SURROGATE.test(s)

export const UNSTORABLE_TEXT = 'must not contain the NUL character or an unpaired surrogate'

/**
 * A string field that refuses text no store can hold, with a 400 naming the field.
 *
 * @example
 * const Title = storableString().max(500)
 */
export const storableString = () =>
  z.string().refine(isStorableText, { message: UNSTORABLE_TEXT, params: fieldCode('unsupported_text') })

/**
 * An address, normalised before it is validated: an address typed in full width
 * (`ｕｓｅｒ＠ｅｘａｍｐｌｅ．ｃｏｍ`) is its ASCII form, and what is not one address after
 * normalising (a quoted local part, a list, a display name, a line break) is refused
 * (docs/reference/conventions.md#emails).
 */
export const EmailField = z
  .string()
  .refine(isStorableText, { message: UNSTORABLE_TEXT, params: fieldCode('unsupported_text') })
  .trim()
  .overwrite((s) => s.normalize('NFKC'))
  .toLowerCase()
  .email()
  .max(254)
  .openapi({ example: 'ada@example.com' })

/** A string whose length in code points lies in [min, max] (JSON Schema counts code points too). */
export const codePointString = (min: number, max: number, what: string) =>
  storableString()
    .refine((s) => codePoints(s) >= min, {
      message: `${what} must be at least ${plural(min, 'character')}`,
      params: fieldCode('too_short'),
    })
    .refine((s) => codePoints(s) <= max, {
      message: `${what} must be at most ${plural(max, 'character')}`,
      params: fieldCode('too_long'),
    })
    .openapi({ minLength: min, maxLength: max })

/**
 * A new password: 8 to 256 code points, not on the common-password list. The list is checked
 * only when the length is right, beside the other fields' checks, so one answer names them all.
 */
export const NewPasswordField = codePointString(8, 256, 'Password')
  .refine(async (s) => !(await isCommonPassword(s)), {
    message: COMMON_PASSWORD,
    params: fieldCode('common_password'),
    when: (payload) => payload.issues.length === 0,
  })
  .openapi({ format: 'password' })
export const PasswordField = storableString().max(1024).openapi({ format: 'password' })
/** `currentPassword` of an operation that takes a fresh session instead (`x-fresh`). */
export const CurrentPasswordField = PasswordField.optional().openapi({
  format: 'password',
  description:
    'The current password. May be left out while the session is fresh (it proved its holder at most `x-fresh` seconds ago: signed in or re-authenticated with POST /auth/reauth); when given, it is checked.',
})
