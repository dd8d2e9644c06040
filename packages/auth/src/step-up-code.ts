/**
 * What a sensitive route asks of the second factor (docs/guide/step-up.md): `POST /reauth` and
 * `POST /delete-account` take a `code` field while the account has one on. Two-factor owns the
 * field and the check (`two-factor/step-up-code.ts`); the routes say what a missing code means.
 */
import type { z } from '@hono/zod-openapi'
import type { Context } from 'hono'

/** What the check found: no factor on, no code sent, or the kind of code spent. */
export type StepUpCodeResult = 'off' | 'missing' | 'totp' | 'recovery'

export interface StepUpCode {
  /** The optional body field, described by the route. */
  field: (description: string) => z.ZodOptional<z.ZodString>
  /**
   * With the account's factor on, spends `code` (of the app, or an unused recovery code); a wrong
   * or used one is `two_factor.failed` and the 400 `wrong_code`, spending nothing.
   */
  check: (c: Context, userId: string, code: string | undefined) => Promise<StepUpCodeResult>
  /** After a recovery code was spent and the route's step is done: the event and the owner's notice. */
  recovered: (c: Context, user: { id: string; email: string }, usedFor: 'reauth' | 'delete-account') => void
}
