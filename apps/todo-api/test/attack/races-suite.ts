/**
 * Races on the real server and its database (racesSuite runs on each store: races.test.ts on
 * SQLite, races.postgres.test.ts on PostgreSQL): requests fired together, each on its own
 * connection and from its own client address (TRUST_PROXY=true, so only the per-email limits
 * apply). One email signed up at once: exactly one 201. One refresh value spent at once: exactly
 * one 200, and the session lives on. One reset token redeemed at once: exactly one 204, and that
 * password wins. One sign-in mail spent at once by its link and its code: one session. One todo patched and deleted at once by its owner (and by someone else): no 5xx
 * and a final state that some single order of the requests explains.
 *
 * The per-email limit (10 per 15 minutes for each of signup, login and reset-password,
 * docs/reference/limits.md#rate-limits) caps each race on one email at 10 requests: more would be
 * 429s, not a race. So does the per-account limit of two-factor enable (10 per 15 minutes). One
 * mailed add-credential code spent by racing enables: exactly one 200; racing wrong codes all
 * count toward its five tries. One passkey challenge answered by 10 sign-ins at once: one session;
 * by 6 re-authentications at once: one 200; by a sign-in and a reauth at once: one of them.
 */
import { randomUUID } from 'node:crypto'
import * as OTPAuth from 'otpauth'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CreationOptions, type RequestOptions, softAuthenticator } from '../../../../packages/auth/test/authenticator.js'
import { type Reply, type RunningServer, request, startServerWithMail, type startSmtp, type TodoJson } from '../support.js'
import type { AttackStore, DbView } from './db-view.js'
import { freshIp, type Member, newMember, refreshValueOf, strongPassword } from './helpers.js'

/** The races against a server on `store`. */
export const racesSuite = (store: AttackStore) =>
  describe.skipIf(store.skip !== null)(`races on ${store.name}`, () => {
    let server: RunningServer
    let smtp: Awaited<ReturnType<typeof startSmtp>>
    const NAME = '__Secure-refresh_token'

    const call = (method: string, path: string, options: Parameters<typeof request>[3] = {}) =>
      request(server.base, method, path, { ...options, headers: { 'x-forwarded-for': freshIp(), ...options.headers } })

    const statuses = (replies: Reply[]) => replies.map((r) => r.status).sort((a, b) => a - b)
    const count = (replies: Reply[], status: number) => replies.filter((r) => r.status === status).length

    let view: DbView
    let target: Awaited<ReturnType<AttackStore['prepare']>> | undefined
    /** Reads the database directly, read-only. */
    const query = <T>(sql: string, ...params: unknown[]): Promise<T[]> => view.query<T>(sql, ...params)

    beforeAll(async () => {
      target = await store.prepare()
      ;({ server, smtp } = await startServerWithMail({ env: { ...target.env, NODE_ENV: 'production', TRUST_PROXY: 'true' } }))
      view = target.view(server)
    })

    afterAll(async () => {
      await view?.close()
      await server?.stop()
      await smtp?.close()
      await target?.drop()
    })

    describe('races', () => {
      it('signs one email up exactly once when 10 signups race, however the email is written', async () => {
        for (let round = 0; round < 3; round++) {
          const email = `race-${randomUUID()}@example.com`
          const spellings = [email, email.toUpperCase(), ` ${email} `, `\t${email.replace('race', 'RACE')}`]
          const replies = await Promise.all(
            Array.from({ length: 10 }, (_, i) =>
              call('POST', '/auth/signup', { body: { name: `Racer ${i}`, email: spellings[i % 4], password: strongPassword() } }),
            ),
          )
          expect(statuses(replies), `round ${round}`).toEqual([201, ...Array(9).fill(409)])
          const users = await query<{ id: string }>('select id from auth_users where email = ?', email)
          expect(users).toHaveLength(1)
          const winner = replies.find((r) => r.status === 201)?.body as { user: { id: string } }
          expect(winner.user.id).toBe(users[0]?.id)
          // Losers opened no session and set no cookie.
          expect(await query('select id from auth_sessions where user_id = ?', users[0]?.id)).toHaveLength(1)
          for (const r of replies.filter((r) => r.status === 409)) expect(r.headers.getSetCookie()).toEqual([])
        }
      })

      it('rotates one refresh value exactly once when 20 refreshes race, and the session lives on', async () => {
        const a = await newMember(server.base, 'Refresher')
        let value = a.refresh
        for (let round = 0; round < 3; round++) {
          const replies = await Promise.all(
            Array.from({ length: 20 }, () => call('POST', '/auth/refresh', { cookie: `${NAME}=${value}` })),
          )
          expect(statuses(replies), `round ${round}`).toEqual([200, ...Array(19).fill(401)])
          // Losers of the race leave the cookie alone: the winner's Set-Cookie may reach the browser later.
          for (const r of replies.filter((r) => r.status === 401)) expect(r.headers.getSetCookie()).toEqual([])
          const winner = replies.find((r) => r.status === 200) as Reply
          const next = refreshValueOf(winner)
          expect(next).toBeDefined()
          value = next ?? ''
          const { accessToken } = winner.body as { accessToken: string }
          expect((await call('GET', '/auth/me', { token: accessToken })).status).toBe(200)
        }
        expect((await call('GET', '/auth/me', { token: a.token })).status).toBe(200)
        expect(await query('select id from auth_sessions where user_id = ?', a.userId)).toHaveLength(1)
        const live = await query<{ n: number }>(
          'select cast(count(*) as integer) as n from auth_sessions where user_id = ? and refresh_hash is not null',
          a.userId,
        )
        expect(live[0]?.n).toBe(1)
        expect((await call('POST', '/auth/refresh', { cookie: `${NAME}=${value}` })).status).toBe(200)
      })

      it('redeems one reset token exactly once when 10 redemptions race: that password wins, every session ends', async () => {
        const a = await newMember(server.base, 'Resetter')
        const second = await call('POST', '/auth/login', { body: { email: a.email, password: a.password } })
        expect(second.status).toBe(200)
        const before = smtp.mails.length
        expect((await call('POST', '/auth/forgot-password', { body: { email: a.email } })).status).toBe(202)
        const mail = await smtp.waitFor(a.email, before)
        const token = decodeURIComponent(/token=(\S+)/.exec(mail.text)?.[1] ?? '')

        // Eight strong passwords and two refused ones (a refused password must not spend the token).
        const passwords = [...Array.from({ length: 8 }, () => strongPassword()), 'password123', a.email]
        const replies = await Promise.all(
          passwords.map((newPassword) => call('POST', '/auth/reset-password', { body: { token, newPassword } })),
        )
        expect(count(replies, 204)).toBe(1)
        expect(count(replies, 400)).toBe(9)
        expect(statuses(replies).filter((s) => s !== 204 && s !== 400)).toEqual([])
        const winner = passwords[replies.findIndex((r) => r.status === 204)] as string
        expect(
          await query('select used_at from auth_reset_tokens where user_id = ? and used_at is not null', a.userId),
        ).toHaveLength(1)

        // Every session of the account is gone, access tokens and refresh values alike.
        expect((await call('GET', '/auth/me', { token: a.token })).status).toBe(401)
        expect((await call('GET', '/auth/me', { token: (second.body as { accessToken: string }).accessToken })).status).toBe(401)
        expect((await call('POST', '/auth/refresh', { cookie: `${NAME}=${a.refresh}` })).status).toBe(401)
        expect(await query('select id from auth_sessions where user_id = ?', a.userId)).toEqual([])

        // The winner's password signs in; no loser's does, nor the old one (9 logins: within the limit of 10).
        const login = (password: string) => call('POST', '/auth/login', { body: { email: a.email, password } })
        expect((await login(winner)).status).toBe(200)
        for (const loser of passwords.slice(0, 8).filter((p) => p !== winner)) expect((await login(loser)).status).toBe(401)
        expect((await login(a.password)).status).toBe(401)
      })

      it('spends one sign-in mail exactly once when 20 POSTs of its link and its code race: one session', async () => {
        const a = await newMember(server.base, 'Mailed')
        const before = smtp.mails.length
        const asked = await call('POST', '/auth/email-sign-in', { body: { email: a.email } })
        expect(asked.status).toBe(202)
        const { flow } = asked.body as { flow: string }
        const mail = await smtp.waitFor(a.email, before, 5_000, 'sign-in')
        const token = /sign-in\?token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1] ?? ''
        const code = /code in the browser where you asked: ([0-9]{6})/.exec(mail.text)?.[1] ?? ''
        const replies = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            call('POST', '/auth/email-sign-in/verify', { body: i % 2 ? { token } : { flow, code } }),
          ),
        )
        expect(statuses(replies)).toEqual([200, ...Array(19).fill(401)])
        // The first proof of the unverified account ended its signup session: the winner's is the one left.
        expect(await query('select id from auth_sessions where user_id = ?', a.userId)).toHaveLength(1)
        expect((await call('GET', '/auth/me', { token: a.token })).status).toBe(401)
      })

      describe('one mailed add-credential code, many enables', () => {
        /** A verified member with a pending two-factor key; the code setup mailed and a TOTP code. */
        const pending = async () => {
          const m = await newMember(server.base, 'Enabler')
          const verify = await smtp.waitFor(m.email, 0, 5_000, 'verify-email')
          const token = decodeURIComponent(/token=(\S+)/.exec(verify.text)?.[1] ?? '')
          expect((await call('POST', '/auth/verify-email', { token: m.token, body: { token } })).status).toBe(204)
          const before = smtp.mails.length
          const setup = await call('POST', '/auth/two-factor/setup', { token: m.token, body: { currentPassword: m.password } })
          expect(setup.status).toBe(200)
          const mail = await smtp.waitFor(m.email, before, 5_000, 'add-credential')
          const emailCode = /^ {4}([0-9]{6})\r?$/m.exec(mail.text)?.[1] ?? ''
          const code = OTPAuth.URI.parse((setup.body as { uri: string }).uri).generate()
          const enable = (body: { code: string; emailCode: string }) =>
            call('POST', '/auth/two-factor/enable', { token: m.token, body })
          return { m, emailCode, code, enable }
        }
        const codesOf = (userId: string) => query('select user_id from auth_add_credential_codes where user_id = ?', userId)

        it('10 enables with one mailed code: exactly one 200, and the code is spent', async () => {
          const { m, emailCode, code, enable } = await pending()
          const replies = await Promise.all(Array.from({ length: 10 }, () => enable({ code, emailCode })))
          expect(count(replies, 200)).toBe(1)
          // The losers: the code was spent (400), or the factor is on by then (409).
          expect(statuses(replies).filter((s) => s !== 200 && s !== 400 && s !== 409)).toEqual([])
          expect(await codesOf(m.userId)).toEqual([])
        })

        it('5 wrong mailed codes at once all count: the right one is dead afterwards', async () => {
          const { m, emailCode, code, enable } = await pending()
          const wrong = (i: number) => String((Number(emailCode) + 1 + i) % 1_000_000).padStart(6, '0')
          const replies = await Promise.all(Array.from({ length: 5 }, (_, i) => enable({ code, emailCode: wrong(i) })))
          expect(statuses(replies)).toEqual(Array(5).fill(400))
          expect((await enable({ code, emailCode })).status).toBe(400)
          expect((await call('GET', '/auth/two-factor', { token: m.token })).body).toMatchObject({ enabled: false })
        })
      })

      /** A verified member with one registered passkey, and the software authenticator that holds it. */
      const memberWithPasskey = async () => {
        const m = await newMember(server.base, 'Keyholder')
        const verify = await smtp.waitFor(m.email, 0, 5_000, 'verify-email')
        const token = decodeURIComponent(/token=(\S+)/.exec(verify.text)?.[1] ?? '')
        expect((await call('POST', '/auth/verify-email', { token: m.token, body: { token } })).status).toBe(204)
        // The server's origin as a browser's page on it would send it (rpId localhost).
        const authenticator = softAuthenticator({ origin: `http://localhost:${server.port}` })
        const before = smtp.mails.length
        const options = await call('POST', '/auth/passkeys/register/options', { token: m.token })
        expect(options.status).toBe(200)
        const mail = await smtp.waitFor(m.email, before, 5_000, 'add-credential')
        const emailCode = /^ {4}([0-9]{6})\r?$/m.exec(mail.text)?.[1] ?? ''
        const registered = await call('POST', '/auth/passkeys/register', {
          token: m.token,
          body: { response: await authenticator.create(options.body as CreationOptions), emailCode },
        })
        expect(registered.status).toBe(201)
        return { m, authenticator }
      }

      /** A new passkey challenge and the authenticator's one assertion answering it. */
      const assertion = async (authenticator: Awaited<ReturnType<typeof memberWithPasskey>>['authenticator']) => {
        const started = await call('POST', '/auth/passkeys/login/options')
        const { challengeId, options } = started.body as { challengeId: string; options: RequestOptions }
        return { challengeId, response: await authenticator.get(options) }
      }

      it('signs in once when 10 passkey sign-ins race with one challenge and one assertion: one session', async () => {
        const { m, authenticator } = await memberWithPasskey()
        const sessionsBefore = (await query('select id from auth_sessions where user_id = ?', m.userId)).length
        const body = await assertion(authenticator)
        const replies = await Promise.all(Array.from({ length: 10 }, () => call('POST', '/auth/passkeys/login', { body })))
        expect(statuses(replies)).toEqual([200, ...Array(9).fill(401)])
        expect(await query('select id from auth_sessions where user_id = ?', m.userId)).toHaveLength(sessionsBefore + 1)
        for (const r of replies.filter((r) => r.status === 401)) expect(r.headers.getSetCookie()).toEqual([])
      })

      // Reauth counts 10 per account per 15 minutes: 6 racing, then 2 more, stay inside it.
      it('re-authenticates once when 6 reauths race with one passkey challenge and one assertion', async () => {
        const { m, authenticator } = await memberWithPasskey()
        const passkey = await assertion(authenticator)
        const replies = await Promise.all(
          Array.from({ length: 6 }, () => call('POST', '/auth/reauth', { token: m.token, body: { passkey } })),
        )
        expect(statuses(replies)).toEqual([200, ...Array(5).fill(400)])
        for (const r of replies.filter((r) => r.status === 400)) expect(r.body).toMatchObject({ code: 'invalid_passkey' })
        // The challenge is spent: the same assertion proves nothing afterwards either.
        expect((await call('POST', '/auth/reauth', { token: m.token, body: { passkey } })).status).toBe(400)
        // And it cannot be answered twice across the two routes: one sign-in or one reauth, not both.
        const shared = await assertion(authenticator)
        const [signIn, reauth] = await Promise.all([
          call('POST', '/auth/passkeys/login', { body: shared }),
          call('POST', '/auth/reauth', { token: m.token, body: { passkey: shared } }),
        ])
        expect([signIn.status, reauth.status].filter((status) => status === 200)).toHaveLength(1)
      })

      describe('one todo, many writers', () => {
        let ada: Member
        let bob: Member
        beforeAll(async () => {
          ;[ada, bob] = await Promise.all([newMember(server.base, 'Ada'), newMember(server.base, 'Bob')])
        })
        const create = async (title: string) => {
          const reply = await call('POST', '/todos', { token: ada.token, body: { title } })
          expect(reply.status).toBe(201)
          return reply.body as TodoJson
        }
        const row = (id: string) =>
          query<{ title: string; done: number; user_id: string }>(
            'select title, cast(done as integer) as done, user_id from todos where id = ?',
            id,
          )

        it('30 concurrent PATCHes: every answer is one of the writes whole, and so is the final row', async () => {
          for (let round = 0; round < 3; round++) {
            const todo = await create(`patch race ${round}`)
            const writes = Array.from({ length: 30 }, (_, i) => ({ title: `write ${round}.${i}`, done: i % 3 === 0 }))
            const replies = await Promise.all(
              writes.map((body) => call('PATCH', `/todos/${todo.id}`, { token: ada.token, body })),
            )
            expect(statuses(replies)).toEqual(Array(30).fill(200))
            const pairs = new Set(writes.map((w) => `${w.title}|${w.done}`))
            for (const r of replies) {
              const t = r.body as TodoJson
              expect(pairs.has(`${t.title}|${t.done}`), `a torn write: ${r.text}`).toBe(true)
              expect(t).toMatchObject({ id: todo.id, userId: ada.userId, createdAt: todo.createdAt })
            }
            const [final] = await row(todo.id)
            expect(final && pairs.has(`${final.title}|${final.done === 1}`)).toBe(true)
            const listed = ((await call('GET', '/todos?limit=100', { token: ada.token })).body as TodoJson[]).find(
              (t) => t.id === todo.id,
            )
            expect(listed && `${listed.title}|${listed.done}`).toBe(`${final?.title}|${final?.done === 1}`)
          }
        })

        it('PATCHes and DELETEs by the owner and by another user at once: one 204, the rest 200 or 404, and the todo is gone', async () => {
          for (let round = 0; round < 3; round++) {
            const todo = await create(`delete race ${round}`)
            const bystander = await create(`bystander ${round}`)
            const requests: { who: 'ada' | 'bob'; send: () => Promise<Reply> }[] = [
              ...Array.from({ length: 20 }, (_, i) => ({
                who: 'ada' as const,
                send: () => call('PATCH', `/todos/${todo.id}`, { token: ada.token, body: { title: `w${i}`, done: true } }),
              })),
              ...Array.from({ length: 5 }, () => ({
                who: 'ada' as const,
                send: () => call('DELETE', `/todos/${todo.id}`, { token: ada.token }),
              })),
              ...Array.from({ length: 5 }, () => ({
                who: 'bob' as const,
                send: () => call('DELETE', `/todos/${todo.id}`, { token: bob.token }),
              })),
              ...Array.from({ length: 5 }, () => ({
                who: 'bob' as const,
                send: () => call('PATCH', `/todos/${todo.id}`, { token: bob.token, body: { title: 'bob was here' } }),
              })),
            ]
            // Owners and intruders interleaved.
            const order = requests.map((r, i) => ({ ...r, key: (i * 7919) % requests.length })).sort((x, y) => x.key - y.key)
            const replies = await Promise.all(order.map(({ send }) => send()))
            expect(replies.filter((r) => r.status >= 500)).toEqual([])
            expect(count(replies, 204)).toBe(1)
            // Whatever the order, the intruder got nothing but 404s.
            expect(statuses(replies.filter((_, i) => order[i]?.who === 'bob'))).toEqual(Array(10).fill(404))
            for (const r of replies) {
              expect([200, 204, 404]).toContain(r.status)
              if (r.status === 200)
                expect(r.body).toMatchObject({
                  id: todo.id,
                  userId: ada.userId,
                  done: true,
                  title: expect.stringMatching(/^w\d+$/),
                })
              if (r.status === 404) expect(r.body).toMatchObject({ status: 404, detail: `No todo with id ${todo.id}` })
            }
            expect(await row(todo.id)).toEqual([])
            expect((await call('PATCH', `/todos/${todo.id}`, { token: ada.token, body: { done: false } })).status).toBe(404)
            // Nothing else moved: the bystander is as it was, and Bob's writes reached nothing.
            expect(await row(bystander.id)).toEqual([
              expect.objectContaining({ title: bystander.title, done: 0, user_id: ada.userId }),
            ])
            expect(await query('select id from todos where title = ?', 'bob was here')).toEqual([])
          }
        })
      })
    })
  })
