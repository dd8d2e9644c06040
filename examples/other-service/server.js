// A second service that trusts the access tokens of a Latchkey server (LATCHKEY_URL) without
// its secret: @latchkey/verify checks them against the server's published public keys.
import { serve } from '@hono/node-server'
import { createVerifier } from '@latchkey/verify'
import { requireAccessToken } from '@latchkey/verify/hono'
import { Hono } from 'hono'

const latchkey = process.env.LATCHKEY_URL ?? 'http://localhost:3000'
const verifier = createVerifier({
  jwksUrl: `${latchkey}/.well-known/jwks.json`,
  issuer: process.env.LATCHKEY_ISSUER ?? 'latchkey',
  audience: process.env.LATCHKEY_AUDIENCE ?? 'latchkey',
})

const app = new Hono()
app.get('/reports', requireAccessToken(verifier), (c) => {
  const { sub, sid } = c.get('claims')
  return c.json({ user: sub, session: sid, reports: [] })
})

serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 4000) }, ({ port }) =>
  console.log(`listening on http://localhost:${port}`),
)
