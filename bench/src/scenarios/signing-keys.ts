/**
 * Scenario 9: access tokens other services can verify. 9a: the reference server's guarded read
 * with EdDSA tokens (AUTH_SIGNING_KEYS) against the same server with HS256. 9b: `verify()` of
 * @latchkey/verify per second, against jose's bare signature check with the key in hand.
 */

import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { accessTokenFor, type Ctx, DIST, startApp } from '../context.js'
import { runJson } from '../procs.js'
import type { SeededUser } from '../seed.js'
import {
  bearer,
  compared,
  interleaved,
  type MainData,
  medianCpu,
  medianRps,
  type Outcome,
  problems,
  readTodos,
  rps,
  strip,
} from './shared.js'

type Rates = Record<'verifyEdDSA' | 'verifyES256' | 'joseEdDSA' | 'joseES256' | 'joseHS256', number>

const perSecond = (x: number) => `${Math.round(x).toLocaleString('en-US')} /s`

export const signingKeys = async (ctx: Ctx, data: MainData): Promise<Outcome> => {
  const { privateKey } = await generateKeyPair('EdDSA', { extractable: true })
  const jwk = { ...(await exportJWK(privateKey)), kid: 'bench-1', alg: 'EdDSA' }
  const edToken = (user: SeededUser) => {
    const iat = Math.floor(Date.now() / 1000)
    return new SignJWT({ sid: user.sessionId, jti: randomUUID() })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: jwk.kid })
      .setSubject(user.id)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 900)
      .setIssuer('latchkey')
      .setAudience('latchkey')
      .sign(privateKey)
  }
  const hs = await startApp(ctx, 'todo-api-hs256', data.dbPath)
  const ed = await startApp(ctx, 'todo-api-eddsa', data.dbPath, undefined, undefined, {
    AUTH_SIGNING_KEYS: JSON.stringify([jwk]),
  })
  try {
    ctx.progress('scenario 9a: GET /todos?limit=20 with EdDSA tokens beside HS256, 32 connections')
    const reads = await interleaved(ctx, [
      {
        key: 'hs256',
        server: hs,
        variant: readTodos(bearer(await Promise.all(data.readers.map((u) => accessTokenFor(ctx, u))))),
      },
      { key: 'eddsa', server: ed, variant: readTodos(bearer(await Promise.all(data.readers.map(edToken)))) },
    ])
    ctx.progress('scenario 9b: @latchkey/verify verify() per second, in-process')
    const rates = await runJson<Rates>({
      script: join(DIST, 'verify-rate.js'),
      args: ctx.quick ? ['2000', '3'] : ['5000', '7'],
      cores: ctx.pinning.server,
      timeoutMs: 120_000,
    })
    const notes = Object.values(reads)
      .flat()
      .map((x) => problems(x))
      .filter(Boolean)
    const rows = [
      compared(
        '9a',
        'Reference server: guarded GET /todos?limit=20, EdDSA tokens (AUTH_SIGNING_KEYS) vs HS256',
        [medianRps(reads.eddsa), medianRps(reads.hs256)],
        rps,
        { atLeast: 0.9 },
        [
          ...notes,
          'the guard verifies a token once and remembers it, so the signature algorithm costs on its first request only',
        ].join('; '),
      ),
      compared(
        '9b',
        '@latchkey/verify verify() per second, EdDSA, distinct tokens one after another vs jose jwtVerify with the key in hand',
        [rates.verifyEdDSA, rates.joseEdDSA],
        perSecond,
        { atLeast: 0.8 },
        `ES256: ${perSecond(rates.verifyES256)} (jose alone ${perSecond(rates.joseES256)}); HS256 under jose alone: ${perSecond(rates.joseHS256)}`,
      ),
    ]
    const cpu = { hs256: medianCpu(reads.hs256), eddsa: medianCpu(reads.eddsa) }
    return { rows, raw: { cpuMsPerRequest: cpu, reads: strip(reads), verifyPerSecond: rates } }
  } finally {
    await Promise.all([hs.stop(), ed.stop()])
  }
}
