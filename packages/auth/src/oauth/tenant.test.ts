/**
 * A multi-tenant issuer (Microsoft's `common`): the metadata names `{tenantid}`, and each ID token
 * must be issued by the issuer of its own `tid`; the identity is (that tenant's issuer, `sub`), so
 * the same `sub` in two tenants is two identities. On both stores.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { harness } from '../../test/harness.js'
import { HOSTILE_CLIENT, startHostileProvider } from '../../test/hostile-provider.js'
import { begin, callback, landed } from '../../test/oauth-flow.js'
import { type OpenedStore, STORES } from '../../test/stores.js'

const TENANT_A = '9188040d-6c67-4c5b-b112-36a304b66dad'
const TENANT_B = '72f988bf-86f1-41af-91ab-2d7cd011db47'

describe.each(STORES)('a multi-tenant issuer on $name', ({ skip, open }) => {
  let idp: Awaited<ReturnType<typeof startHostileProvider>>
  let opened: OpenedStore
  beforeAll(async () => {
    // Microsoft's metadata does not advertise RFC 9207.
    idp = await startHostileProvider({ iss9207: false, tenantIssuer: (url) => `${url}/{tenantid}/v2.0` })
  })
  afterAll(async () => {
    await idp.close()
  })
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const run = it.skipIf(skip !== null)
  const now = () => Math.floor(Date.now() / 1000)
  const tenantIssuer = (tid: string) => `${idp.issuer}/${tid}/v2.0`

  run('the token of a tenant signs in as (that tenant’s issuer, sub); another tenant’s iss is refused', async () => {
    const h = harness({
      store: opened.store,
      providers: [
        { id: 'ms', name: 'Microsoft', issuer: idp.issuer, tenantIssuer: `${idp.issuer}/{tenantid}/v2.0`, ...HOSTILE_CLIENT },
      ],
    })
    const token = (tid: string, iss: string, sub: string, email: string, nonce: string) => ({
      iss,
      tid,
      aud: HOSTILE_CLIENT.clientId,
      sub,
      nonce,
      iat: now(),
      exp: now() + 300,
      email,
      email_verified: true,
    })
    const attempt = async (tid: string, iss: string, sub: string, email: string) => {
      const s = await begin(h, 'ms')
      idp.respond(token(tid, iss, sub, email, s.nonce))
      return landed(await callback(h, 'ms', `code=c&state=${s.state}`, s.cookie))
    }
    expect(await attempt(TENANT_A, tenantIssuer(TENANT_A), 'same-sub', 'a@example.com')).toBe('/back')
    expect((await opened.store.findIdentity(tenantIssuer(TENANT_A), 'same-sub'))?.provider).toBe('ms')
    expect(await attempt(TENANT_B, tenantIssuer(TENANT_B), 'same-sub', 'b@example.com')).toBe('/back')
    const a = await opened.store.findIdentity(tenantIssuer(TENANT_A), 'same-sub')
    const b = await opened.store.findIdentity(tenantIssuer(TENANT_B), 'same-sub')
    expect(a?.userId).not.toBe(b?.userId)
    // A token that names tenant B's issuer but carries tenant A's tid, or no tid at all.
    expect(await attempt(TENANT_A, tenantIssuer(TENANT_B), 'x', 'x@example.com')).toBe('/back?error=provider_error&provider=ms')
    expect(await attempt('not-a-tenant', tenantIssuer(TENANT_A), 'y', 'y@example.com')).toBe(
      '/back?error=provider_error&provider=ms',
    )
  })
})
