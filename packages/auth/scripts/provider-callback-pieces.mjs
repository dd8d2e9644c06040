/**
 * Pieces of a provider sign-in callback timed alone (docs/PERFORMANCE.md#provider-sign-in-callbacks-issue-44):
 * this process's CPU per call, over 2,000 calls in turn after 200 of warm-up, for what
 * scripts/provider-callback.mjs cannot split: oauth4webapi's reading of the token response (its
 * JSON, the ID token's claims: `iss`, `aud`, `exp`, `iat`, `nonce`), the ID token's RS256
 * signature by a 2048-bit key of the provider's JWKS (held in oauth4webapi's cache after the first
 * fetch, as in the callback), the HS256 access token a session's start signs (jose), and the code
 * exchange's request as this side sends it and reads the answer (`fetch` to a loopback server in
 * another process, which answers the same JSON at once).
 * Run it after `pnpm --filter @latchkey/auth build`: `node scripts/provider-callback-pieces.mjs`.
 */
import { spawn } from 'node:child_process'
import { Agent, request } from 'node:http'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import * as oauth from 'oauth4webapi'

const RUNS = 2000
const WARMUP = 200
const issuer = 'http://127.0.0.1:9'
const as = { issuer, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks` }
const client = { client_id: 'latchkey-bench' }
const nonce = 'n-0123456789abcdefghijklmnopqrstuvwxyz'

const { privateKey, publicKey } = await generateKeyPair('RS256', { modulusLength: 2048 })
const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] })
const idToken = await new SignJWT({ nonce, email: 'ada@example.com', email_verified: true, name: 'Ada' })
  .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
  .setIssuer(issuer)
  .setAudience(client.client_id)
  .setSubject('subject-0123456789')
  .setIssuedAt()
  .setExpirationTime('1h')
  .sign(privateKey)
const body = JSON.stringify({
  access_token: 'a'.repeat(43),
  token_type: 'Bearer',
  expires_in: 3600,
  scope: 'openid email profile',
  id_token: idToken,
})
const tokenResponse = () => new Response(body, { headers: { 'content-type': 'application/json' } })
const jwksOptions = {
  [oauth.allowInsecureRequests]: true,
  [oauth.customFetch]: async () => new Response(jwks, { headers: { 'content-type': 'application/json' } }),
}
const hmacKey = new TextEncoder().encode('bench-secret-that-is-long-enough-0123456789')

/** The token endpoint's stand-in: a child process (its CPU is not this one's) answering every POST with `body`. */
const serve = `require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => { s.setHeader('content-type', 'application/json'); s.end(process.env.BODY) }) }).listen(0, '127.0.0.1', function () { process.send(this.address().port) })`
const server = spawn(process.execPath, ['-e', serve], {
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  env: { ...process.env, BODY: body },
})
const port = await new Promise((resolve) => server.once('message', resolve))
const form =
  'grant_type=authorization_code&code=c0123456789&redirect_uri=http%3A%2F%2Fapp.test%2Fauth%2Foauth%2Foidc%2Fcallback&code_verifier=v0123456789abcdefghijklmnopqrstuvwxyz0123456'

const agent = new Agent({ keepAlive: true })

const PIECES = {
  'the code exchange over loopback (fetch: a form POSTed, the JSON answer read)': async () =>
    (
      await fetch(`http://127.0.0.1:${port}/token`, {
        method: 'POST',
        body: form,
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic bGF0Y2hrZXk6c2VjcmV0' },
        signal: AbortSignal.timeout(5000),
      })
    ).json(),
  'the same request with node:http and a keep-alive agent, for comparison': () =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/token',
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic bGF0Y2hrZXk6c2VjcmV0' },
        },
        (res) => {
          const chunks = []
          res.on('data', (chunk) => chunks.push(chunk))
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())))
        },
      )
      req.on('error', reject)
      req.end(form)
    }),
  'a token response as it arrives (the Response and its JSON)': async () => tokenResponse().json(),
  'oauth4webapi: token response read, ID token claims checked': async () =>
    oauth.processAuthorizationCodeResponse(as, client, tokenResponse(), { expectedNonce: nonce, requireIdToken: true }),
  'the same, then the ID token signature (RS256, WebCrypto)': async () => {
    const response = tokenResponse()
    await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: nonce, requireIdToken: true })
    await oauth.validateApplicationLevelSignature(as, response, jwksOptions)
  },
  'the access token a session start signs (HS256, jose)': async () =>
    new SignJWT({ sid: 'session-id', amr: ['fed'], auth_time: 1 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('user-id')
      .setIssuedAt()
      .setExpirationTime('15m')
      .sign(hmacKey),
}

console.log(`CPU per call, median of ${RUNS / 100} batches of 100 after ${WARMUP} of warm-up:\n`)
console.log('| piece | CPU per call |\n|---|---|')
for (const [name, piece] of Object.entries(PIECES)) {
  for (let i = 0; i < WARMUP; i++) await piece()
  const batches = []
  for (let b = 0; b < RUNS / 100; b++) {
    const before = process.cpuUsage()
    for (let i = 0; i < 100; i++) await piece()
    const { user, system } = process.cpuUsage(before)
    batches.push((user + system) / 100)
  }
  batches.sort((x, y) => x - y)
  console.log(`| ${name} | ${Math.round(batches[Math.floor(batches.length / 2)])} µs |`)
}
agent.destroy()
server.kill()
