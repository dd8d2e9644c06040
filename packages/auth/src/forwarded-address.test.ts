/**
 * Forwarded addresses are addresses (SECURITY.md, "Client addresses"): with `trustProxy` the
 * right-most `X-Forwarded-For` entry without its port, IPv4 inside IPv6 (mapped, compatible,
 * NAT64) as that IPv4 address, and an entry that is not an IP address ignored for the
 * connection's. So a port per request is not a new client to the limits, one NAT64 client is
 * not every NAT64 client, and no header text is stored as a session's address.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { harness, PASSWORD } from '../test/harness.js'
import { type OpenedStore, STORES } from '../test/stores.js'
import { canonicalAddress, rateLimitAddress } from './credentials.js'

describe('canonicalAddress', () => {
  it('drops the port of IPv4 and of bracketed IPv6', () => {
    expect(canonicalAddress('1.2.3.4:5678')).toBe('1.2.3.4')
    expect(canonicalAddress(' 1.2.3.4 ')).toBe('1.2.3.4')
    expect(canonicalAddress('[2001:db8::1]:443')).toBe('2001:db8::1')
    expect(canonicalAddress('[2001:db8::1]')).toBe('2001:db8::1')
  })

  it('writes IPv4 carried in IPv6 as IPv4: mapped, compatible and NAT64', () => {
    expect(canonicalAddress('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(canonicalAddress('::FFFF:cb00:7107')).toBe('203.0.113.7')
    expect(canonicalAddress('::203.0.113.7')).toBe('203.0.113.7')
    expect(canonicalAddress('64:ff9b::203.0.113.7')).toBe('203.0.113.7')
    expect(canonicalAddress('[64:ff9b::cb00:7107]:80')).toBe('203.0.113.7')
    // IPv6's own loopback and unspecified addresses stay IPv6.
    expect(canonicalAddress('::1')).toBe('::1')
    expect(canonicalAddress('::')).toBe('::')
  })

  it('writes IPv6 one way (RFC 5952) and drops a zone', () => {
    expect(canonicalAddress('2001:0DB8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1')
    expect(canonicalAddress('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1')
    expect(canonicalAddress('fe80::1%eth0')).toBe('fe80::1')
    expect(canonicalAddress('ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255')).toBe('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')
  })

  it('is null for anything that is not an IP address', () => {
    for (const junk of [
      '',
      'unknown',
      'evil.example',
      '1.2.3',
      '1.2.3.256',
      '01.2.3.4x',
      '1:2:3',
      '::g',
      '1.2.3.4:',
      '[1.2.3.4]:80x',
      'x'.repeat(8000),
      '2001:db8::1:443:1:2:3:4:5',
    ])
      expect(canonicalAddress(junk), junk.slice(0, 20)).toBeNull()
  })
})

describe('rateLimitAddress', () => {
  it('counts NAT64 and IPv4-compatible clients by their IPv4 address, not as one /64', () => {
    expect(rateLimitAddress('64:ff9b::198.51.100.1', 64)).toBe('198.51.100.1')
    expect(rateLimitAddress('64:ff9b::198.51.100.2', 64)).not.toBe(rateLimitAddress('64:ff9b::198.51.100.1', 64))
    expect(rateLimitAddress('::198.51.100.1', 64)).toBe('198.51.100.1')
  })
})

describe.each(STORES)('forwarded addresses through the limiter on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const limitedTo = (max: number) => harness({ store: opened.store, rateLimit: { ip: { max, windowSeconds: 60 } } })
  const loginFrom = (h: ReturnType<typeof harness>, forwarded: string, i: number) =>
    h.request('POST', '/auth/login', { json: { email: `p${i}@example.com`, password: 'wrong guess' }, ip: forwarded })

  it.skipIf(skip !== null)('a port per request is the same client: IPv4 and bracketed IPv6', async () => {
    for (const [withPort, plain] of [
      [(i: number) => `192.0.2.50:${10_000 + i}`, '192.0.2.50'],
      [(i: number) => `[2001:db8:5:5::${i + 1}]:${10_000 + i}`, '2001:db8:5:5::99'],
    ] as const) {
      const h = limitedTo(3)
      for (let i = 0; i < 3; i++) expect((await loginFrom(h, withPort(i), i)).status).toBe(401)
      expect((await loginFrom(h, withPort(3), 3)).status).toBe(429)
      expect((await loginFrom(h, plain, 4)).status).toBe(429)
    }
  })

  it.skipIf(skip !== null)('a NAT64 client is its IPv4 address: it shares a bucket with that address only', async () => {
    const h = limitedTo(3)
    for (let i = 0; i < 3; i++) expect((await loginFrom(h, `64:ff9b::198.51.100.1`, i)).status).toBe(401)
    expect((await loginFrom(h, '198.51.100.1', 3)).status).toBe(429)
    expect((await loginFrom(h, '::198.51.100.1', 3)).status).toBe(429)
    // Another client behind the same NAT64 prefix is not locked out with it.
    expect((await loginFrom(h, '64:ff9b::198.51.100.2', 4)).status).toBe(401)
  })

  it.skipIf(skip !== null)('an entry that is not an IP address is ignored: the connection address counts', async () => {
    const h = limitedTo(3)
    // The harness's connection address is unknown: every junk entry falls back to that one client.
    for (let i = 0; i < 3; i++) expect((await loginFrom(h, `junk-${i}`, i)).status).toBe(401)
    expect((await loginFrom(h, 'x'.repeat(100), 3)).status).toBe(429)
  })

  it.skipIf(skip !== null)('stores a session address in its one written form, never header text', async () => {
    const h = harness({ store: opened.store })
    const ada = await h.signup('ada@example.com', PASSWORD)
    for (const forwarded of ['[2001:DB8:0:0::7]:443', '64:ff9b::203.0.113.9', 'y'.repeat(8000), '1.2.3.4:5678'])
      expect((await h.login('ada@example.com', PASSWORD, forwarded)).status).toBe(200)
    const list = await h.request('GET', '/auth/sessions', { headers: ada.bearer })
    const ips = ((await list.json()) as { ip: string | null }[]).map((s) => s.ip).sort()
    expect(ips).toEqual(['1.2.3.4', '2001:db8::7', '203.0.113.7', '203.0.113.9', null].sort())
  })
})
