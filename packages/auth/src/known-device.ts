/**
 * The lookup of every route keyed by an email (login, email-sign-in, forgot-password): the browser
 * of the request when the account its body's email names has signed in from it before. Such a
 * request counts on its device instead of the email (docs/reference/limits.md#keys), and an
 * email sign-in keeps its mail apart from everyone else's
 * (docs/reference/email-sign-in.md#asking-for-a-mail), so requests from elsewhere never refuse
 * or undo the owner's known browser (docs/guide/account-protection.md). The account it reads for
 * that is handed on with the answer, so a handler that needs it (login) does not read it again.
 */
import { z } from '@hono/zod-openapi'
import { canonicalEmail } from './email.js'
import { isStorableText } from './fields.js'
import type { Subject } from './limits.js'
import type { LookupFacts } from './route-builder.js'
import type { RouteDeps } from './route-deps.js'
import type { Store, UserRecord, UserWithHash } from './store/types.js'

/** The peek of a route keyed by its body's `email`. */
export const EmailPeek = { email: z.string() }

/**
 * What the lookup found: the known device's account and hash (the limit's keys, only when the
 * device is known) and, whenever it read one, the account the canonical `email` names (`null`:
 * none), for the handler.
 */
export interface KnownDevice<U extends UserRecord> extends Subject {
  account?: { email: string; found: UserWithHash<U> | null }
}

/**
 * Without a device cookie nothing is looked up; with several, any one the account knows counts. The device is looked up for an unknown
 * email too (under no account), so both cost the same queries.
 */
export const knownDevice =
  <U extends UserRecord>({ store, devices }: Pick<RouteDeps<U>, 'store' | 'devices'>) =>
  async ({ c, peek }: LookupFacts<typeof EmailPeek>): Promise<KnownDevice<U> | null> => {
    const device = devices.of(c)
    if (!device.presented || peek.email === undefined) return null
    const email = canonicalEmail(peek.email)
    // Read before validation: only what could be a stored address is looked up (PostgreSQL refuses NUL).
    if (email.length > 254 || !isStorableText(email)) return null
    const found = await store.findUserByEmail(email)
    const userId = found?.user.id ?? null
    const deviceHash = await devices.knownTo(c, userId ?? '')
    const account = { email, found }
    return userId && deviceHash ? { userId, deviceHash, account } : { account }
  }

/**
 * The account `email` (validated, canonical) names: the one the lookup read when it read this
 * address (a login from a browser with a device cookie), otherwise read now. Known and unknown
 * addresses alike are read once either way, so both cost the same queries.
 */
export const accountByEmail = <U extends UserRecord>(
  store: Pick<Store<U>, 'findUserByEmail'>,
  looked: KnownDevice<U> | null,
  email: string,
): Promise<UserWithHash<U> | null> =>
  looked?.account?.email === email ? Promise.resolve(looked.account.found) : store.findUserByEmail(email)
