/**
 * How a feature joins the second step of a sign-in (docs/reference/two-factor.md#signing-in), which
 * two-factor owns: the app's codes and recovery codes answer a challenge, and another method (a
 * passkey) registers how it is offered and how its answer is checked.
 */
import type { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { SecondFactor } from './session-proof.js'
import type { FirstFactor } from './store/types.js'

/**
 * Another way to answer a challenge, as documented: what it adds to the 202 body and to the body
 * of `POST /two-factor/verify`. Declared whether or not its feature is on, so the API's shape does
 * not change with the options; {@link SecondStepAlternative} is the part that runs.
 */
export interface SecondStepMethod {
  /** Its name in the challenge's `methods`. */
  method: string
  /** What it is, in the verify body's messages: `a passkey`. */
  named: string
  /** The 202 body's field that offers it (optional), and its schema. */
  offer: { field: string; schema: z.ZodType }
  /** The verify body's field that carries its answer (optional), and its schema. */
  answer: { field: string; schema: z.ZodType }
}

/** A {@link SecondStepMethod} that is on: how it is offered to an account and how its answer is checked. */
export interface SecondStepAlternative {
  method: string
  /** What an accepted answer is, as the session's `amr` records it (`hwk`). */
  factor: SecondFactor
  /**
   * What it adds to the 202 body for this account (its offer's field), or `null` when it cannot
   * answer: the account has none, or the first step was of the same kind (the same factor twice).
   * `boundTo` is the challenge's hash, what the method's own proof must be bound to.
   */
  offer(userId: string, boundTo: string, firstFactor: FirstFactor): Promise<Record<string, unknown> | null>
  /** Whether `answer` proves the account's holder for the challenge `boundTo`. */
  verify(c: Context, answer: unknown, challenge: { userId: string; boundTo: string; firstFactor: FirstFactor }): Promise<boolean>
}
