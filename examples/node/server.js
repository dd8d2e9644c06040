// The smallest Hono app with @latchkey/auth on Node: better-sqlite3, the client address from
// the Node adapter (no option needed on Node), mails printed (send them with your mailer instead).
import { serve } from '@hono/node-server'
import { createAuth } from '@latchkey/auth'
import { migrateSqlite, openSqlite, sqliteStore } from '@latchkey/auth/sqlite'
import { Hono } from 'hono'

const db = openSqlite(process.env.DATABASE_PATH ?? 'auth.db')
migrateSqlite(db)

const auth = createAuth({
  secret: process.env.AUTH_SECRET,
  store: sqliteStore(db),
  publicUrl: process.env.PUBLIC_URL ?? 'http://localhost:3000',
  sendMail: (mail) => console.log(JSON.stringify({ mail })),
  onEvent: (event) => console.log(JSON.stringify({ event })),
})

const app = new Hono()
app.route('/auth', auth.routes)
app.get('/me/hello', auth.guard(true), (c) => c.json({ hello: c.get('user').name }))

const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000) }, ({ port }) =>
  console.log(`listening on http://localhost:${port}`),
)

// Ctrl-C or SIGTERM: no new connections, requests and mails in flight finish, then exit 0. A
// second signal while stopping (a terminal's Ctrl-C reaches the whole process group) changes
// nothing: with no listener left, it would kill the process mid-stop.
let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  server.close(async () => {
    await auth.settled()
    db.close()
    process.exit(0)
  })
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
