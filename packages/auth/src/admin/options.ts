/**
 * The `admin` option (docs/guide/operators.md#turning-it-on): which policy makes a caller an
 * operator, and whether operators may act on each other. Checked once at construction: the policy
 * must be registered.
 */
import { fail } from '../option-checks.js'

/** The slice of `createAuth`'s options that mounts the operators' routes. */
export interface AdminOption<Name extends string> {
  /**
   * Operators' routes under `/auth/admin` (docs/guide/operators.md), each guarded by `policy`, every
   * write also by a fresh session (`freshAge`). An action on an account that itself passes `policy`
   * is refused (403 `protected_user`) unless `canActOnAdmins` is `true`.
   *
   * @example
   * admin: { policy: 'admin' }
   */
  admin?: { policy: NoInfer<Name>; canActOnAdmins?: boolean }
}

export interface ResolvedAdminOption {
  /** `null`: the operators' routes are not mounted. */
  admin: { policy: string; canActOnAdmins: boolean } | null
}

export const resolveAdminOption = (options: { admin?: unknown; policies?: unknown }): ResolvedAdminOption => {
  if (options.admin === undefined) return { admin: null }
  if (typeof options.admin !== 'object' || options.admin === null) return fail('admin', 'must be { policy, canActOnAdmins? }')
  const { policy, canActOnAdmins } = options.admin as Record<string, unknown>
  const policies = (options.policies ?? {}) as Record<string, unknown>
  if (typeof policy !== 'string' || !Object.hasOwn(policies, policy))
    fail('admin.policy', `must name a policy registered in \`policies\`, got ${String(policy)}`)
  if (canActOnAdmins !== undefined && typeof canActOnAdmins !== 'boolean') fail('admin.canActOnAdmins', 'must be a boolean')
  return { admin: { policy: policy as string, canActOnAdmins: canActOnAdmins === true } }
}
