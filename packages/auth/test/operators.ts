/**
 * The operators' routes under test: the harness with `admin: { policy: 'admin' }` on a store of
 * `STORES`, an operator signed in (fresh), and helpers to call the routes as them.
 */
import { expect } from 'vitest'
import { harness, PASSWORD } from './harness.js'

export type Json = Record<string, unknown>

export const operators = (overrides: Parameters<typeof harness>[0] = {}) => {
  const h = harness({ admin: { policy: 'admin' }, ...overrides })
  // The store the routes run on (the harness's own unless one is given).
  const store = overrides.store ?? h.store
  /** Signs up `email` and makes it an operator (the `admin` role: the policy reads it on every request). */
  const operator = async (email = 'op@example.com') => {
    const signed = await h.signup(email, PASSWORD, 'Operator')
    expect(await store.setRole(email, 'admin')).toBe(true)
    return signed
  }
  /** Calls an operators' route as the holder of `bearer`. */
  const call = (bearer: Record<string, string>, method: string, path: string, json?: unknown) =>
    h.request(method, `/auth/admin${path}`, { headers: bearer, ...(json === undefined ? {} : { json }) })
  /** Disables `userId` as the holder of `bearer`; expects 204. */
  const disable = async (bearer: Record<string, string>, userId: string, reason = 'abuse report #12') => {
    const res = await call(bearer, 'POST', `/users/${userId}/disable`, { reason })
    expect(res.status, await res.clone().text()).toBe(204)
  }
  return { ...h, store, operator, call, disable }
}

export type Operators = ReturnType<typeof operators>
