/**
 * The app's authentication: `createAuth` on the opened database, with the one policy this app
 * registers, `admin` (`user.raw.role === 'admin'`, set with `pnpm cli set-role`).
 */
import { type Auth, createAuth, type UserRecord } from '@latchkey/auth'
import type { AppDatabase } from './db/index.js'
import type { Mailer } from './mail.js'

/** The auth component of this app: the store's users (SQLite or PostgreSQL), one policy named `admin`. */
export type AppAuth = Auth<UserRecord, 'admin'>

export interface AppAuthOptions {
  /** One secret, or several: the first signs access tokens, every one verifies them. */
  secret: string | readonly string[]
  db: AppDatabase
  mailer: Mailer
  /** Base URL of links and of the same-origin check, without a trailing slash. */
  publicUrl: string
  production: boolean
  trustProxy: boolean
  /** Unexpected errors (names and codes only). */
  log: (line: string) => void
  now: () => Date
}

export const createAppAuth = ({ secret, db, mailer, publicUrl, production, trustProxy, log, now }: AppAuthOptions): AppAuth =>
  createAuth({
    secret,
    store: db.authStore,
    // On PostgreSQL the counts live in the database, so every instance counts against one limit.
    ...(db.rateLimitStore ? { rateLimit: { store: db.rateLimitStore } } : {}),
    sendMail: (mail) => mailer.sendReset(mail),
    policies: { admin: (user) => user.raw.role === 'admin' },
    publicUrl,
    trustProxy,
    secureCookies: production || publicUrl.startsWith('https:'),
    log,
    now,
  })
