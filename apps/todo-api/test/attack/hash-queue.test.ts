/**
 * One client cannot starve the password-hashing queue (SECURITY.md, "One client holds at most a
 * quarter of the hashing queue"), against the real server (real argon2id) behind TRUST_PROXY on
 * each store. During one client's burst of 100 concurrent logins, from one IPv4 address or from
 * 100 /64s of one IPv6 /48, another client's logins are served: never a 503. The third review saw
 * 2 of 4 unrelated logins get 503 on PostgreSQL during such a burst.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Reply, type RunningServer, request, startServer } from '../support.js'
import { ATTACK_STORES } from './db-view.js'
import { type Member, newMember, until } from './helpers.js'

const BURST = 100

/** Who bursts (the address of its i-th login), and the other clients that sign in meanwhile. */
const BURSTS: [string, (i: number) => string, string[]][] = [
  ['one IPv4 address', () => '198.51.100.70', ['203.0.113.70', '203.0.113.71']],
  ['100 /64s of one IPv6 /48', (i) => `2001:db8:70:${i.toString(16)}::1`, ['2001:db8:71::1', '203.0.113.72']],
]

describe.each(ATTACK_STORES)('the hashing queue under one client’s burst on $name', (store) => {
  let server: RunningServer
  let drop = async () => {}
  let member: Member

  beforeAll(async () => {
    if (store.skip) return
    const prepared = await store.prepare()
    drop = prepared.drop
    server = await startServer({ env: { ...prepared.env, TRUST_PROXY: 'true' } })
    member = await newMember(server.base)
  })

  afterAll(async () => {
    await server?.stop()
    await drop()
  })

  const login = (email: string, password: string, forwarded: string) =>
    request(server.base, 'POST', '/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': forwarded } })

  it.skipIf(store.skip !== null).each(BURSTS)(
    "serves another client's logins during a burst from %s",
    async (_, from, others) => {
      const burst: Reply[] = []
      // Unknown emails, each its own (the per-email limit stays out of it): each still costs a
      // verification, against the decoy hash.
      const sent = Array.from({ length: BURST }, (_, i) =>
        login(`burst-${randomUUID()}@example.com`, 'a wrong guess', from(i)).then((r) => {
          burst.push(r)
        }),
      )
      // The queue is as full as this client can make it once its first 503 is back.
      await until(() => burst.some((r) => r.status === 503), 20_000, 'a 503 in the burst')
      const served = await Promise.all([...others, ...others].map((forwarded) => login(member.email, member.password, forwarded)))
      await Promise.all(sent)
      expect(served.map((r) => r.status)).toEqual([200, 200, 200, 200])
      // The burst itself: refused beyond its share, 503 with Retry-After, the rest 401.
      const refused = burst.filter((r) => r.status === 503)
      expect(refused.length).toBeGreaterThan(0)
      expect(refused[0]?.headers.get('retry-after')).toBe('1')
      expect(burst.filter((r) => r.status !== 503 && r.status !== 401)).toEqual([])
    },
    60_000,
  )
})
