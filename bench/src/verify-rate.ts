/**
 * Scenario 9b, in-process: `verify()` of @latchkey/verify per second, with its key set fetched
 * once from a key server on loopback, for EdDSA and ES256 tokens; beside it jose's own
 * `jwtVerify` with the key already imported (the floor: the signature check alone), and HS256
 * under jose for scale. Each variant verifies distinct tokens one after another, in rounds that
 * take turns; the median round counts.
 * Run pinned to the server core as `node verify-rate.js <tokens per round> <rounds>`; prints one JSON line.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createVerifier } from '@latchkey/verify'
import { exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose'
import { median } from './stats.js'

const perRound = Number(process.argv[2])
const rounds = Number(process.argv[3])
if (!(perRound > 0 && perRound <= 100_000 && rounds > 0 && rounds <= 100))
  throw new Error('usage: node verify-rate.js <tokens per round ≤ 100000> <rounds ≤ 100>')

const keys = await Promise.all(
  (['EdDSA', 'ES256'] as const).map(async (alg) => {
    const pair = await generateKeyPair(alg)
    return { alg, ...pair, jwk: { ...(await exportJWK(pair.publicKey)), kid: alg, alg, use: 'sig' } as JWK }
  }),
)
const server = createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json' })
  res.end(JSON.stringify({ keys: keys.map((k) => k.jwk) }))
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const verifier = createVerifier({
  jwksUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`,
  issuer: 'latchkey',
  audience: 'latchkey',
})

const tokens = (alg: string, key: Parameters<SignJWT['sign']>[0], kid: string) => {
  const iat = Math.floor(Date.now() / 1000)
  return Promise.all(
    Array.from({ length: perRound }, (_, i) =>
      new SignJWT({ sid: `s-${i}`, jti: `j-${i}` })
        .setProtectedHeader({ alg, typ: 'JWT', kid })
        .setSubject(`u-${i}`)
        .setIssuedAt(iat)
        .setExpirationTime(iat + 900)
        .setIssuer('latchkey')
        .setAudience('latchkey')
        .sign(key),
    ),
  )
}
const hmac = new TextEncoder().encode('a-bench-secret-of-at-least-32-characters!')
const claims = { issuer: 'latchkey', audience: 'latchkey' }
const variants: Record<string, { tokens: string[]; verify: (token: string) => Promise<unknown> }> = {}
for (const k of keys) {
  const signed = await tokens(k.alg, k.privateKey, k.alg)
  variants[`verify${k.alg}`] = { tokens: signed, verify: (t) => verifier.verify(t) }
  variants[`jose${k.alg}`] = { tokens: signed, verify: (t) => jwtVerify(t, k.publicKey, { ...claims, algorithms: [k.alg] }) }
}
variants.joseHS256 = {
  tokens: await tokens('HS256', hmac, 'h'),
  verify: (t) => jwtVerify(t, hmac, { ...claims, algorithms: ['HS256'] }),
}
await verifier.verify(variants.verifyEdDSA?.tokens[0] ?? '') // fetches the key set once, outside the timing

const perSecond: Record<string, number[]> = {}
for (let r = 0; r < rounds; r++) {
  const names = Object.keys(variants)
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + r) % names.length] as string
    const { tokens: list, verify } = variants[name] as (typeof variants)[string]
    const started = performance.now()
    for (const token of list) await verify(token)
    const seconds = (performance.now() - started) / 1000
    perSecond[name] = [...(perSecond[name] ?? []), list.length / seconds]
  }
}
server.close()
process.stdout.write(`${JSON.stringify(Object.fromEntries(Object.entries(perSecond).map(([k, v]) => [k, median(v)])))}\n`)
