/**
 * The provider of scripts/provider-callback.mjs, in a process of its own so that none of its CPU
 * is counted as the server's: `oidc-provider` on a loopback port, configured as
 * packages/auth/test/oidc-provider.ts configures it (PKCE required, one confidential client, no
 * dev interactions), and the browser's walk through its pages. Over IPC it says its issuer, then
 * answers each `{ walk: authorizationUrl, subject }` with `{ callback: url }`, the callback URL the
 * provider sent the browser back to, with `subject` signed in and consenting.
 * Arguments: the redirect URI, the client id and secret; `--userinfo`: the email claims only in userinfo (`conformIdTokenClaims`), not in the ID token.
 */
import { createServer } from 'node:http'
import Provider from 'oidc-provider'

const [redirectUri = '', CLIENT_ID, CLIENT_SECRET] = process.argv.slice(2)

const serve = async () => {
  let provider = null
  const server = createServer((req, res) => {
    if (!req.url?.startsWith('/interaction/')) return provider.callback()(req, res)
    const accountId = String(req.headers['x-account'] ?? 'nobody')
    void (async () => {
      const details = await provider.interactionDetails(req, res)
      const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) })
      grant.addOIDCScope(String(details.params.scope))
      const grantId = await grant.save()
      const result = { login: { accountId }, consent: { grantId } }
      await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false })
    })().catch((err) => {
      res.statusCode = 500
      res.end(String(err))
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${server.address().port}`
  const client = { client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [redirectUri] }
  provider = new Provider(issuer, {
    clients: [{ ...client, grant_types: ['authorization_code'], response_types: ['code'] }],
    pkce: { required: () => true },
    conformIdTokenClaims: process.argv.includes('--userinfo'),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['oidc-provider-bench-cookie-key-0123456789'] },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({ sub, email: `${sub}@example.com`, email_verified: true, name: `Person ${sub}` }),
    }),
  })
  return issuer
}

/** The browser at the provider: its own cookies, redirects followed until one leaves for `appOrigin`. */
const walk = async (url, subject, appOrigin) => {
  const cookies = new Map()
  let location = url
  while (!location.startsWith(appOrigin)) {
    const res = await fetch(location, {
      redirect: 'manual',
      headers: { Cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'X-Account': subject },
    })
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      cookies.set(pair.slice(0, at), pair.slice(at + 1))
    }
    const next = res.headers.get('location')
    if (!next) throw new Error(`the provider answered ${res.status}: ${await res.text()}`)
    location = new URL(next, location).href
  }
  return location
}

const appOrigin = new URL(redirectUri).origin
process.send({ issuer: await serve() })
process.on('message', ({ walk: url, subject }) => {
  walk(url, subject, appOrigin).then(
    (callback) => process.send({ callback }),
    (err) => process.send({ error: String(err) }),
  )
})
process.on('disconnect', () => process.exit(0))
