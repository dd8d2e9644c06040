// The smallest Hono app with @latchkey/auth on Cloudflare Workers: the store on D1, the client
// address from hono/cloudflare-workers, mails and events posted to MAIL_URL (your mail API)
// or printed. The auth component is made once per isolate, on its first request (it needs env).
import { createAuth } from '@latchkey/auth'
import { type D1DatabaseLike, d1Store, migrateD1 } from '@latchkey/auth/d1'
import { Hono } from 'hono'
import { getConnInfo } from 'hono/cloudflare-workers'

interface Env {
  DB: D1DatabaseLike
  AUTH_SECRET: string
  PUBLIC_URL?: string
  MAIL_URL?: string
}

const deliver = async (env: Env, body: unknown) => {
  if (env.MAIL_URL) await fetch(env.MAIL_URL, { method: 'POST', body: JSON.stringify(body) })
  else console.log(JSON.stringify(body))
}

let app: Hono | undefined
let prune: (() => Promise<unknown>) | undefined
let migrated: Promise<void> | undefined

const appFor = (env: Env) => {
  if (app) return app
  const auth = createAuth({
    secret: env.AUTH_SECRET,
    store: d1Store(env.DB),
    getConnInfo,
    publicUrl: env.PUBLIC_URL ?? 'http://localhost:8787',
    sendMail: (mail) => deliver(env, { mail }),
    onEvent: (event) => deliver(env, { event }),
    // No timer between requests here: a Cron Trigger calls auth.prune() (scheduled, below).
    prune: { intervalSeconds: 0 },
  })
  prune = auth.prune
  app = new Hono()
  app.route('/auth', auth.routes)
  app.get('/me/hello', auth.guard(true), (c) => c.json({ hello: c.get('user').name }))
  return app
}

export default {
  async fetch(request: Request, env: Env, ctx: { waitUntil(promise: Promise<unknown>): void }) {
    // The tables, once per isolate (idempotent; a deploy step can do it instead).
    migrated ??= migrateD1(env.DB)
    await migrated
    return appFor(env).fetch(request, env, ctx as never)
  },
  // A Cron Trigger (Wrangler configuration: [triggers] crons = ["*/10 * * * *"]) deletes dead sessions and spent tokens.
  async scheduled(_event: unknown, env: Env, ctx: { waitUntil(promise: Promise<unknown>): void }) {
    migrated ??= migrateD1(env.DB)
    await migrated
    appFor(env)
    if (prune) ctx.waitUntil(prune())
  },
}
