/**
 * A write that names an account deleted meanwhile (delete-account racing a login or a todo: on
 * PostgreSQL the foreign key catches it) is the 401 the request would have had a moment later,
 * never a 500. Real foreign-key violations from each store, through the error handler's mapping.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type OpenedStore, STORES } from '../test/stores.js'
import { toAuthError } from './errors.js'

describe.each(STORES)('a write for an account that no longer exists, on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })

  it.skipIf(skip !== null)('is the 401 of a gone account, not a 500: the foreign key names the user', async () => {
    const failure = await Promise.resolve()
      .then(() =>
        opened.store.createResetToken({ userId: 'deleted-meanwhile', tokenHash: 'h', expiresAt: new Date(Date.now() + 60_000) }),
      )
      .then(
        () => null,
        (err: unknown) => err,
      )
    expect(failure).toBeInstanceOf(Error)
    const answer = toAuthError(failure)
    expect(answer.status).toBe(401)
    expect(answer.toJSON()).toMatchObject({ code: 'unauthorized', detail: 'The account this request acts for no longer exists.' })
    expect(answer.headers['WWW-Authenticate']).toBe('Bearer error="invalid_token"')
    expect(await opened.count('auth_reset_tokens')).toBe(0)
    // Any other failure of the database stays a 500 that says nothing.
    expect(toAuthError(new Error('connection terminated')).status).toBe(500)
  })
})
