/**
 * Forwarded addresses are addresses (SECURITY.md, "Client addresses"), against the real server
 * behind TRUST_PROXY on each store: a port per request is the same client to the limits, a NAT64
 * client is its own IPv4 address (not one bucket with every other NAT64 client), and no header
 * text is stored as a session's address. The third review got 105 × 202 against a limit of 100
 * with a new port each time, and read 8,000 characters back from GET /auth/sessions.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, request, startServer } from '../support.js'
import { ATTACK_STORES } from './db-view.js'
import { newMember } from './helpers.js'

/** The per-address limit of forgot-password (docs/reference/limits.md#rate-limits, the default). */
const IP_LIMIT = 100

describe.each(ATTACK_STORES)('forwarded addresses on $name', (store) => {
  let server: RunningServer
  let drop = async () => {}

  beforeAll(async () => {
    if (store.skip) return
    const prepared = await store.prepare()
    drop = prepared.drop
    server = await startServer({ env: { ...prepared.env, TRUST_PROXY: 'true' } })
  })

  afterAll(async () => {
    await server?.stop()
    await drop()
  })

  /** forgot-password for a fresh email (so only the address's limit counts), from `forwarded`. */
  const forgot = (forwarded: string) =>
    request(server.base, 'POST', '/auth/forgot-password', {
      body: { email: `f-${randomUUID()}@example.com` },
      headers: { 'x-forwarded-for': forwarded },
    })

  it.skipIf(store.skip !== null)(
    'gives a client that changes its port every request no new bucket (IPv4 and [IPv6])',
    async () => {
      for (const [withPort, plain] of [
        [(i: number) => `198.51.100.60:${10_000 + i}`, '198.51.100.60'],
        [(i: number) => `[2001:db8:60:1::${(i + 1).toString(16)}]:${10_000 + i}`, '2001:db8:60:1::ffff'],
      ] as const) {
        const statuses: number[] = []
        for (let i = 0; i < IP_LIMIT + 5; i++) statuses.push((await forgot(withPort(i))).status)
        expect(statuses.filter((s) => s === 202)).toHaveLength(IP_LIMIT)
        expect(statuses.slice(IP_LIMIT)).toEqual(Array(5).fill(429))
        expect((await forgot(plain)).status).toBe(429)
      }
    },
  )

  it.skipIf(store.skip !== null)(
    'counts a NAT64 client as its IPv4 address: it does not lock out the others behind NAT64',
    async () => {
      for (let i = 0; i < IP_LIMIT; i++) expect((await forgot('64:ff9b::203.0.113.61')).status).toBe(202)
      expect((await forgot('64:ff9b::203.0.113.61')).status).toBe(429)
      expect((await forgot('203.0.113.61')).status).toBe(429)
      expect((await forgot('::203.0.113.61')).status).toBe(429)
      expect((await forgot('64:ff9b::203.0.113.62')).status).toBe(202)
    },
  )

  it.skipIf(store.skip !== null)('stores no header text as a session address, only an address in its one form', async () => {
    const member = await newMember(server.base)
    for (const forwarded of ['z'.repeat(8000), '[2001:DB8:0:0::61]:443', '64:ff9b::c633:643d'])
      expect(
        (
          await request(server.base, 'POST', '/auth/login', {
            body: { email: member.email, password: member.password },
            headers: { 'x-forwarded-for': forwarded },
          })
        ).status,
      ).toBe(200)
    const sessions = await request(server.base, 'GET', '/auth/sessions', { token: member.token })
    const ips = (sessions.body as { ip: string | null }[]).map((s) => s.ip)
    // The junk entry fell back to the connection's address (loopback).
    expect(ips).toEqual(expect.arrayContaining(['127.0.0.1', '2001:db8::61', '198.51.100.61']))
    for (const ip of ips) expect(ip?.length ?? 0).toBeLessThanOrEqual(45)
  })
})
