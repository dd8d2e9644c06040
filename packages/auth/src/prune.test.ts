/**
 * Nothing piles up (docs/reference/operations.md#the-sweep), on both stores, with a frozen clock: 2,000 login / refresh /
 * logout cycles leave no session behind, and 2,000 sessions that outlive their lifetime are
 * deleted by the sweep, in five batches of at most 500, leaving exactly the live rows. Every
 * account signs in more than 400 times from a new device and keeps its 50 newest. Reuse detection needs
 * nothing more than each live session's own row (its current and previous refresh hash).
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import { describe, expect, it } from 'vitest'
import { PASSWORD } from '../test/harness.js'
import { STORES } from '../test/stores.js'
import { createAuth } from './index.js'
import { fastHasher } from './testing/index.js'

const T0 = new Date('2026-11-21T10:00:00.000Z').getTime()
const DAY = 86_400_000
const USERS = 10
/** Cycles, and then sessions left to expire: their 2,010 dead rows take the sweep five batches of 500. */
const N = 2_000
const BATCH = 500
const unlimited = { max: 1_000_000_000, windowSeconds: 60 }

/** Runs `task(i)` for i < n, `width` at a time. */
const inParallel = async (n: number, width: number, task: (i: number) => Promise<void>) => {
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await task(next++)
    }),
  )
}

describe.each(STORES)('pruning on $name', ({ name, skip, open }) => {
  it.skipIf(skip !== null)(
    'keeps only live rows after 2,000 cycles and 2,000 expired sessions',
    // 25 to 35 s per store on the 2-core CI machine with other work on it (10,000 of each took 80 to
    // 150 s, at an even pace from the first cycle to the last); room for two busy cores.
    { timeout: 180_000 },
    async () => {
      const { store, count, close } = await open()
      let now = T0
      const auth = createAuth({
        secret: 'prune-test-secret-0123456789abcdefghijkl',
        store,
        sendMail: () => {},
        hasher: fastHasher(),
        now: () => new Date(now),
        rateLimit: { ip: unlimited, email: unlimited, refresh: { session: unlimited, ip: unlimited } },
        prune: { intervalSeconds: 0, batchSize: BATCH },
        // 200 sessions per user below: the per-account bound is not what this test is about.
        maxSessions: 10_000,
        // 16 logins at once from one address: within its quarter of the hashing queue.
        hashQueue: 64,
      })
      const app = new OpenAPIHono()
      app.route('/auth', auth.routes)
      const post = (path: string, init: { json?: unknown; headers?: Record<string, string> } = {}) =>
        app.request(`/auth${path}`, {
          method: 'POST',
          headers: { ...(init.json ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
          ...(init.json ? { body: JSON.stringify(init.json) } : {}),
        })
      const cookieOf = (res: Response) => /refresh_token=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? ''
      const email = (i: number) => `prune-${i % USERS}@example.com`
      try {
        for (let u = 0; u < USERS; u++)
          expect((await post('/signup', { json: { name: 'P', email: email(u), password: PASSWORD } })).status).toBe(201)
        // The signups' sessions are alive: nothing to delete yet.
        expect(await auth.prune()).toEqual({
          sessions: 0,
          resetTokens: 0,
          emailTokens: 0,
          challenges: 0,
          addCredentialCodes: 0,
          emailSignIns: 0,
          devices: 0,
          apiKeys: 0,
          oauthFlows: 0,
          passkeyChallenges: 0,
          resealed: 0,
        })

        await inParallel(N, 16, async (i) => {
          const login = await post('/login', { json: { email: email(i), password: PASSWORD } })
          expect(login.status).toBe(200)
          const refreshed = await post('/refresh', { headers: { Cookie: `refresh_token=${cookieOf(login)}` } })
          expect(refreshed.status).toBe(200)
          const { accessToken } = (await refreshed.json()) as { accessToken: string }
          expect((await post('/logout', { headers: { Authorization: `Bearer ${accessToken}` } })).status).toBe(204)
        })
        // Only the signups' sessions: every cycle's row went with its logout.
        expect(await count('auth_sessions')).toBe(USERS)

        await inParallel(N, 16, async (i) => {
          expect((await post('/login', { json: { email: email(i), password: PASSWORD } })).status).toBe(200)
        })
        expect(await count('auth_sessions')).toBe(USERS + N)
        // More than four batches' worth: the sweep has to come back for the rest.
        expect(USERS + N).toBeGreaterThan(4 * BATCH)

        // Past the idle lifetime (30 days) of all of them; then five sessions that are alive.
        now += 31 * DAY
        for (let i = 0; i < 5; i++)
          expect((await post('/login', { json: { email: email(i), password: PASSWORD } })).status).toBe(200)
        const pruned = await auth.prune()
        // The signups' verification tokens (24 hours) have expired too.
        expect(pruned).toEqual({
          sessions: USERS + N,
          resetTokens: 0,
          emailTokens: USERS,
          challenges: 0,
          addCredentialCodes: 0,
          emailSignIns: 0,
          devices: 0,
          apiKeys: 0,
          oauthFlows: 0,
          passkeyChallenges: 0,
          resealed: 0,
        })
        expect(await count('auth_sessions')).toBe(5)
        expect(await count('auth_users')).toBe(USERS)
        expect(await count('auth_reset_tokens')).toBe(0)
        expect(await count('auth_email_tokens')).toBe(0)
        // Every login above sent no device cookie, so each was a new device: an account keeps its
        // 50 most recent, and the sweep forgets them a year after their last sign-in.
        const devices = await count('auth_devices')
        expect(devices).toBe(USERS * 50)
        now += 366 * DAY
        expect((await auth.prune()).devices).toBe(devices)
        expect(await count('auth_devices')).toBe(0)
      } finally {
        await auth.close()
        await close()
      }
      console.log(`pruning on ${name}: done`)
    },
  )
})
