/**
 * The lookup of every route keyed by an email (login, email-sign-in, forgot-password): the browser
 * of the request when the account its body's email names has signed in from it before. Such a
 * request counts on its device instead of the email (docs/reference/limits.md#keys), and an
 * email sign-in keeps its mail apart from everyone else's
 * (docs/reference/email-sign-in.md#asking-for-a-mail), so requests from elsewhere never refuse
 * or undo the owner's known browser (docs/guide/account-protection.md).
 */
import { z } from '@hono/zod-openapi'
import { canonicalEmail } from './email.js'
import { isStorableText } from './fields.js'
import type { Subject } from './limits.js'
import type { LookupFacts } from './route-builder.js'
import type { RouteDeps } from './route-deps.js'
import type { UserRecord } from './store/types.js'

/** The peek of a route keyed by its body's `email`. */
export const EmailPeek = { email: z.string() }

/**
 * Without a device cookie nothing is looked up; with several, any one the account knows counts. The device is looked up for an unknown
 * email too (under no account), so both cost the same queries.
 */
export const knownDevice =
  <U extends UserRecord>({ store, devices }: Pick<RouteDeps<U>, 'store' | 'devices'>) =>
  async ({ c, peek }: LookupFacts<typeof EmailPeek>): Promise<Subject | null> => {
    const device = devices.of(c)
    if (!device.presented || peek.email === undefined) return null
    const email = canonicalEmail(peek.email)
    // Read before validation: only what could be a stored address is looked up (PostgreSQL refuses NUL).
    if (email.length > 254 || !isStorableText(email)) return null
    const userId = (await store.findUserByEmail(email))?.user.id ?? null
    const deviceHash = await devices.knownTo(c, userId ?? '')
    return userId && deviceHash ? { userId, deviceHash } : null
  }
