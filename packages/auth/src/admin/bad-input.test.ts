/**
 * What a client can send the operators' routes, on every store: a malformed or forged cursor, a
 * query of 10,000 characters, NUL and lone surrogates, limits out of range, ids no store can hold.
 * Each is a 400 (or the 404 of an id no account has) as a problem document, never a 5xx.
 */
import { expect } from 'vitest'
import { type Json, operators } from '../../test/operators.js'
import { onEveryStore } from '../../test/stores.js'

onEveryStore('bad input to the operators’ routes on $name', ({ opened, run }) => {
  const problem = async (res: Response, status: number) => {
    expect(res.status).toBe(status)
    expect(res.headers.get('content-type')).toContain('application/problem+json')
    return (await res.json()) as Json
  }

  run('refuses a bad query string with 400 naming the field', async () => {
    const h = operators({ store: opened().store })
    const op = await h.operator()
    const forged = btoa('not-a-number.id')
    for (const [query, field] of [
      ['cursor=%%%', 'cursor'],
      ['cursor=abc', 'cursor'],
      [`cursor=${forged}`, 'cursor'],
      [`cursor=${'A'.repeat(10_000)}`, 'cursor'],
      [`query=${'a'.repeat(10_000)}`, 'query'],
      ['query=a%00b', 'query'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=1e1', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=', 'limit'],
      // A repeated parameter is refused, not read as its first value (docs/reference/conventions.md#repeated-query-parameters).
      ['limit=1&limit=2', 'limit'],
      ['query=a&query=b', 'query'],
    ]) {
      const res = await h.call(op.bearer, 'GET', `/users?${query}`)
      expect(res.status, query).toBe(400)
      const body = await problem(res, 400)
      expect(
        (body.errors as Json[]).map((e) => e.path),
        query,
      ).toContain(field)
    }
    // Bytes that are no UTF-8 (what a lone surrogate would be in a URL) are searched for as sent, or refused: never a 5xx.
    expect((await h.call(op.bearer, 'GET', '/users?query=%ED%A0%80')).status).toBeLessThan(500)
    // The largest page is 100: never more, whatever is asked.
    expect((await h.call(op.bearer, 'GET', '/users?limit=100')).status).toBe(200)
  })

  run('refuses a bad reason with 400, and text no store can hold in an id is the 404 of no account', async () => {
    const h = operators({ store: opened().store })
    const op = await h.operator()
    const ada = await h.signup('ada@example.com')
    for (const reason of ['', 'a\u0000b', 'lone \uD800 surrogate', 'x'.repeat(501), 42, null]) {
      const body = await problem(await h.call(op.bearer, 'POST', `/users/${ada.user.id}/disable`, { reason }), 400)
      expect((body.errors as Json[])[0]?.path).toBe('reason')
    }
    await problem(await h.call(op.bearer, 'POST', `/users/${ada.user.id}/disable`, {}), 400)
    const malformed = await h.request('POST', `/auth/admin/users/${ada.user.id}/disable`, {
      body: '{"reason":',
      headers: { ...op.bearer, 'Content-Type': 'application/json' },
    })
    await problem(malformed, 400)
    for (const id of ['%00', '%ED%A0%80', 'x'.repeat(10_000), 'no-such-user']) {
      await problem(await h.call(op.bearer, 'GET', `/users/${id}`), 404)
      await problem(await h.call(op.bearer, 'POST', `/users/${id}/verify-email`), 404)
    }
    // Nothing happened to Ada along the way.
    const shown = (await (await h.call(op.bearer, 'GET', `/users/${ada.user.id}`)).json()) as Json
    expect(shown.disabledAt).toBeNull()
  })
})
