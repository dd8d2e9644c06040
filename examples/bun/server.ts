// The smallest Hono app with @latchkey/auth on Bun: bun:sqlite, the client address from
// hono/bun, mails printed (send them with your mailer instead).
import { createAuth } from '@latchkey/auth'
import { bunSqliteStore, migrateBunSqlite, openBunSqlite } from '@latchkey/auth/bun-sqlite'
import { Hono } from 'hono'
import { getConnInfo } from 'hono/bun'

const db = openBunSqlite(process.env.DATABASE_PATH ?? 'auth.db')
migrateBunSqlite(db)

const auth = createAuth({
  secret: process.env.AUTH_SECRET as string,
  store: bunSqliteStore(db),
  getConnInfo,
  publicUrl: process.env.PUBLIC_URL ?? 'http://localhost:3000',
  sendMail: (mail) => console.log(JSON.stringify({ mail })),
  onEvent: (event) => console.log(JSON.stringify({ event })),
})

const app = new Hono()
app.route('/auth', auth.routes)
app.get('/me/hello', auth.guard(true), (c) => c.json({ hello: c.get('user').name }))

const server = Bun.serve({ port: Number(process.env.PORT ?? 3000), fetch: app.fetch })
console.log(`listening on http://localhost:${server.port}`)

// Ctrl-C or SIGTERM: no new connections, requests and mails in flight finish, then exit 0. A
// second signal while stopping (a terminal's Ctrl-C reaches the whole process group) changes
// nothing: with no listener left, it would kill the process mid-stop.
let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  await server.stop()
  await auth.settled()
  db.close()
  process.exit(0)
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
