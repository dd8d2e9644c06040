import { describe, expect, it } from 'vitest'
import { harness } from '../../test/harness.js'

const NEW = 'reset to something new'

describe('POST /auth/forgot-password', () => {
  it('answers the same 202 for an account and for no account; only the account gets a mail, at its stored address', async () => {
    const h = harness()
    await h.signup()
    const known = await h.request('POST', '/auth/forgot-password', { json: { email: '  ADA@Example.com' } })
    const unknown = await h.request('POST', '/auth/forgot-password', { json: { email: 'ghost@example.com' } })
    expect(known.status).toBe(202)
    expect(unknown.status).toBe(202)
    expect(await known.text()).toBe(await unknown.text())
    await h.auth.settled()
    expect(h.mails).toEqual([
      { kind: 'reset-password', to: 'ada@example.com', token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) },
    ])
  })

  it('stores the token only as a hash, and a new request kills the earlier token', async () => {
    const h = harness()
    await h.signup()
    await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })
    await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })
    await h.auth.settled()
    const [first, second] = h.mails.map((m) => m.token)
    const rows = h.db.prepare('select hash from auth_reset_tokens').all() as { hash: string }[]
    expect(rows.map((r) => r.hash)).not.toContain(second)
    expect(JSON.stringify(rows)).not.toContain(first)
    expect((await h.request('POST', '/auth/reset-password', { json: { token: first, newPassword: NEW } })).status).toBe(400)
    expect((await h.request('POST', '/auth/reset-password', { json: { token: second, newPassword: NEW } })).status).toBe(204)
  })

  it('never lets a failing mail hook change the response, and never logs the token', async () => {
    const h = harness({
      sendMail: () => {
        throw new Error('smtp down')
      },
    })
    await h.signup()
    const res = await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })
    expect(res.status).toBe(202)
    await h.auth.settled()
    expect(h.logs.join('\n')).toContain('sendMail failed')
    const token = (h.db.prepare('select hash from auth_reset_tokens').get() as { hash: string }).hash
    expect(h.logs.join('\n')).not.toContain(token)
  })
})
