// The smallest Hono app with @latchkey/auth on Deno: node:sqlite (built in), the client address
// from hono/deno, mails printed (send them with your mailer instead).
import { createAuth } from '@latchkey/auth'
import { migrateNodeSqlite, nodeSqliteStore, openNodeSqlite } from '@latchkey/auth/node-sqlite'
import { Hono } from 'hono'
import { getConnInfo } from 'hono/deno'

const db = openNodeSqlite(Deno.env.get('DATABASE_PATH') ?? 'auth.db')
migrateNodeSqlite(db)

const auth = createAuth({
  secret: Deno.env.get('AUTH_SECRET') as string,
  store: nodeSqliteStore(db),
  getConnInfo,
  publicUrl: Deno.env.get('PUBLIC_URL') ?? 'http://localhost:3000',
  sendMail: (mail) => console.log(JSON.stringify({ mail })),
  onEvent: (event) => console.log(JSON.stringify({ event })),
})

const app = new Hono()
app.route('/auth', auth.routes)
app.get('/me/hello', auth.guard(true), (c) => c.json({ hello: c.get('user').name }))

const server = Deno.serve(
  {
    port: Number(Deno.env.get('PORT') ?? 3000),
    onListen: ({ port }) => console.log(`listening on http://localhost:${port}`),
  },
  app.fetch,
)

// Ctrl-C or SIGTERM: no new connections, requests and mails in flight finish, then exit 0. A
// second signal while stopping (a terminal's Ctrl-C reaches the whole process group) changes
// nothing.
let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  await server.shutdown()
  await auth.settled()
  db.close()
  Deno.exit(0)
}
Deno.addSignalListener('SIGINT', stop)
Deno.addSignalListener('SIGTERM', stop)
