/**
 * The domain types the rest of the library and an app write against: the signed-in user a
 * guarded handler sees, a policy over it, and the extra signup fields as the user record carries
 * them. The options that configure them are in options.ts.
 */

import type { Context } from 'hono'
import type { z } from 'zod'
import type { UserRecord } from './store/types.js'

/** The signed-in user a guarded handler sees as `c.get('user')`. */
export interface AuthUser<U extends UserRecord = UserRecord> {
  id: string
  name: string
  email: string
  /** The store's user record, without the password hash. */
  raw: U
}

/** A named policy: allow (`true`) or refuse with 403 (`false` or a throw). */
export type Policy<U extends UserRecord = UserRecord> = (user: AuthUser<U>, c: Context) => boolean | Promise<boolean>

/** No extra signup fields: the default of `createAuth`'s shape parameter. */
export type NoFields = Record<never, z.ZodType>

/** The fields an application adds to signup (`signupFields`), as the user record carries them. */
export type SignupExtras<F extends z.ZodRawShape> = [keyof F] extends [never]
  ? unknown
  : // No fields inferred (the shape is the constraint itself): nothing to add.
    string extends keyof F
    ? unknown
    : z.output<z.ZodObject<F>>
