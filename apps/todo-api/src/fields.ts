/**
 * The app's own string fields, checked the way the auth routes check theirs: text every store can
 * hold (PostgreSQL refuses U+0000 in `text` and cannot encode a lone surrogate, so either one
 * would be a 500 there: docs/reference/operations.md#unstorable-text) and lengths counted in code
 * points, as JSON Schema's `minLength`/`maxLength` count them. Each failure is a 400 naming the
 * field, with a stable `code` (`fieldCode` of @latchkey/auth/http).
 */
import { z } from '@hono/zod-openapi'
import { fieldCode } from '@latchkey/auth/http'

// A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const isStorableText = (s: string): boolean => !s.includes('\u0000') && !LONE_SURROGATE.test(s)

/** A string field that refuses text no store can hold. */
export const storableString = () =>
  z.string().refine(isStorableText, {
    message: 'must not contain the NUL character or an unpaired surrogate',
    params: fieldCode('unsupported_text'),
  })

const characters = (n: number) => `${n} character${n === 1 ? '' : 's'}`

/** A storable string whose length in code points lies in [min, max]. */
export const codePointString = (min: number, max: number, what: string) =>
  storableString()
    .refine((s) => [...s].length >= min, {
      message: `${what} must be at least ${characters(min)}`,
      params: fieldCode('too_short'),
    })
    .refine((s) => [...s].length <= max, { message: `${what} must be at most ${characters(max)}`, params: fieldCode('too_long') })
    .openapi({ minLength: min, maxLength: max })
