/**
 * What every operators' route shares: the operators' policy as the route's guard, the account a
 * path names (404 when none), and the rule that an operator is not acted on by another
 * (docs/guide/operators.md#operators-and-other-operators).
 */
import type { Context } from 'hono'
import type { Policy } from '../domain.js'
import { AuthError, errorSummary } from '../errors.js'
import { isStorableText } from '../fields.js'
import { toAuthUser } from '../guard.js'
import { problemResponse } from '../openapi.js'
import type { RouteDeps } from '../route-deps.js'
import { deadSessionCutoffs } from '../session-lifetimes.js'
import type { UserRecord } from '../store/types.js'
import type { AdminUserFacts } from './store.js'

export interface AdminDeps<U extends UserRecord>
  extends Pick<RouteDeps<U>, 'route' | 'store' | 'sessions' | 'notify' | 'options'> {
  admin: { policy: string; canActOnAdmins: boolean }
  /** The operators' policy, asked about the account an action names as well as about the caller. */
  policy: Policy<U>
}

export const protectedUser = () =>
  new AuthError('protected_user', {
    detail: 'This account is an operator too; operators do not act on each other here (admin.canActOnAdmins).',
  })

export const accounts = <U extends UserRecord>({ store, sessions, options, admin, policy }: AdminDeps<U>) => {
  const live = () => deadSessionCutoffs(options.now(), sessions.lifetimes)
  /** The account with this id, or 404 naming the id (text no store can hold names none, without asking). */
  const find = async (id: string): Promise<AdminUserFacts<U>> => {
    const found = isStorableText(id) ? await store.findAdminUser(id, live()) : null
    if (!found) throw new AuthError('not_found', { detail: `No user with id ${id}` })
    return found
  }
  /** Whether the account passes the operators' policy; a policy that throws counts as yes (refuse). */
  const isOperator = async (user: U, c: Context) => {
    try {
      return (await policy(toAuthUser(user), c)) === true
    } catch (err) {
      options.log(`policy "${admin.policy}" threw on the account an operator named: ${errorSummary(err)}`)
      return true
    }
  }
  return {
    live,
    find,
    /** The account an action names: 404 when none, 403 `protected_user` when it is an operator too (unless allowed). */
    async target(c: Context, id: string): Promise<AdminUserFacts<U>> {
      const found = await find(id)
      if (!admin.canActOnAdmins && (await isOperator(found.user, c))) throw protectedUser()
      return found
    },
  }
}

export type Accounts<U extends UserRecord> = ReturnType<typeof accounts<U>>

/** The parts of an operators' route config every route shares: the tag, the policy, and for writes a fresh session. */
export const adminRoute = <U extends UserRecord>({ admin, options }: AdminDeps<U>, write: boolean) => ({
  tags: ['admin'],
  policy: admin.policy,
  ...(write ? { fresh: options.freshAge } : {}),
})

export const notFoundResponse = problemResponse('No account has this id')
export const protectedResponse = 'The account passes the operators’ policy too (`protected_user`), unless `admin.canActOnAdmins`'
