/**
 * What the forgot-password timing files share (forgot-next-request.test.ts, forgot-at-the-beat.test.ts):
 * the real server in production mode on one store, mail over SMTP to a catcher on loopback, and
 * accounts whose addresses have look-alikes without an account, so the limiter sees both sides alike.
 */
import { randomInt, randomUUID } from 'node:crypto'
import { expect } from 'vitest'
import { type RunningServer, randomSecret, request, startServerWithMail } from '../support.js'
import type { AttackStore } from './db-view.js'
import { freshIp, strongPassword } from './helpers.js'

/** Fisher–Yates with crypto-random indices. */
export const shuffled = <T>(xs: T[]): T[] => {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = randomInt(i + 1)
    ;[xs[i], xs[j]] = [xs[j] as T, xs[i] as T]
  }
  return xs
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface ForgotBench {
  server: RunningServer
  smtp: Awaited<ReturnType<typeof startServerWithMail>>['smtp']
  /** The next address with an account, round robin. */
  knownEmail(): string
  /** The next address without one, named like the known ones. */
  unknownEmail(): string
  /** `POST /auth/forgot-password` for `email` from a fresh client address; asserts the 202. */
  forgot(email: string): Promise<void>
  close(): Promise<void>
}

/** Starts the server on `store` with `accounts` accounts signed up. */
export const forgotBench = async (store: AttackStore, accounts: number): Promise<ForgotBench> => {
  const prepared = await store.prepare()
  const { server, smtp } = await startServerWithMail({
    env: {
      ...prepared.env,
      NODE_ENV: 'production',
      AUTH_SECRET: randomSecret(),
      PUBLIC_URL: 'https://todo.example.test',
      MAIL_FROM: 'Latchkey Test <noreply@example.test>',
      TRUST_PROXY: 'true',
    },
  })
  const known: string[] = []
  for (let i = 0; i < accounts; i++) {
    const email = `known-${i}-${randomUUID().slice(0, 8)}@example.com`
    const reply = await request(server.base, 'POST', '/auth/signup', {
      body: { name: 'Known', email, password: strongPassword() },
      headers: { 'x-forwarded-for': freshIp() },
    })
    expect(reply.status).toBe(201)
    known.push(email)
  }
  const unknown = known.map((email) => email.replace('known-', 'nobody-'))
  let k = 0
  let u = 0
  return {
    server,
    smtp,
    knownEmail: () => known[k++ % accounts] as string,
    unknownEmail: () => unknown[u++ % accounts] as string,
    async forgot(email) {
      const reply = await request(server.base, 'POST', '/auth/forgot-password', {
        body: { email },
        headers: { 'x-forwarded-for': freshIp() },
      })
      expect(reply.status).toBe(202)
    },
    async close() {
      await server.stop()
      await smtp.close()
      await prepared.drop()
    },
  }
}

/** The time (ms) of one request that touches no store (`GET /auth/me` without a token, 401): the event loop alone. */
export const probe = async (base: string): Promise<number> => {
  const started = performance.now()
  const reply = await fetch(`${base}/auth/me`)
  await reply.arrayBuffer()
  const elapsed = performance.now() - started
  expect(reply.status).toBe(401)
  return elapsed
}
