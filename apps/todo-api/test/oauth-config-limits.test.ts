/**
 * The reference server's provider variables against the library's own limits on a provider
 * (docs/guide/social-sign-in.md#the-reference-server): a value the library would refuse (a name
 * over 64 characters or blank, a scope with a space, a client id or secret too long) stops the
 * start with one line naming the variable, not the library's option path; and the redirect URI a
 * provider is sent is `$PUBLIC_URL/auth/oauth/<id>/callback`.
 */
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { randomSecret, runServerToExit, startServer } from './support.js'

const base = { AUTH_SECRET: randomSecret(), NODE_ENV: 'development' }
const oidc = (entry: Record<string, unknown>) =>
  JSON.stringify([{ id: 'corp', name: 'Corp', issuer: 'https://sso.corp.example', clientId: 'c', clientSecret: 's', ...entry }])
const refused = (env: Record<string, string>) => {
  try {
    loadConfig({ ...base, ...env })
  } catch (err) {
    return (err as Error).message
  }
  throw new Error('accepted')
}

describe('provider variables the library would refuse', { timeout: 60_000 }, () => {
  it('are refused by the configuration, naming the variable', () => {
    expect(refused({ AUTH_OIDC_PROVIDERS: oidc({ name: 'x'.repeat(65) }) })).toMatch(/^AUTH_OIDC_PROVIDERS\[0\]\.name /)
    expect(refused({ AUTH_OIDC_PROVIDERS: oidc({ name: '   ' }) })).toMatch(/^AUTH_OIDC_PROVIDERS\[0\]\.name /)
    expect(refused({ AUTH_OIDC_PROVIDERS: oidc({ scopes: ['openid email'] }) })).toMatch(/^AUTH_OIDC_PROVIDERS\[0\]\.scopes /)
    expect(refused({ AUTH_OIDC_PROVIDERS: oidc({ scopes: ['a"b'] }) })).toMatch(/^AUTH_OIDC_PROVIDERS\[0\]\.scopes /)
    expect(refused({ AUTH_OIDC_PROVIDERS: oidc({ clientId: 'c'.repeat(513) }) })).toMatch(/^AUTH_OIDC_PROVIDERS\[0\]\.clientId /)
    expect(refused({ AUTH_OIDC_PROVIDERS: oidc({ clientSecret: 's'.repeat(1025) }) })).toMatch(
      /^AUTH_OIDC_PROVIDERS\[0\]\.clientSecret /,
    )
    expect(refused({ GOOGLE_CLIENT_ID: 'g', GOOGLE_CLIENT_SECRET: 's'.repeat(1025) })).toMatch(/^GOOGLE_CLIENT_SECRET /)
    // At the limits, accepted.
    const config = loadConfig({
      ...base,
      AUTH_OIDC_PROVIDERS: oidc({ name: 'x'.repeat(64), scopes: ['openid', 'email', 'https://x.example/scope'] }),
      GITHUB_CLIENT_ID: 'g',
      GITHUB_CLIENT_SECRET: 's'.repeat(1024),
    })
    expect(config.providers.map((p) => p.id)).toEqual(['github', 'corp'])
  })

  it('the server stops with one line naming the variable', async () => {
    const result = await runServerToExit({ ...base, AUTH_OIDC_PROVIDERS: oidc({ name: 'x'.repeat(100) }) })
    expect(result.code).not.toBe(0)
    const lines = result.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/AUTH_OIDC_PROVIDERS\[0\]\.name/)
  })

  it('sends each provider the redirect URI $PUBLIC_URL/auth/oauth/<id>/callback', async () => {
    const server = await startServer({ env: { GITHUB_CLIENT_ID: 'gh-id', GITHUB_CLIENT_SECRET: 'gh-secret' } })
    try {
      const start = await fetch(`${server.base}/auth/oauth/github?returnTo=/`, { redirect: 'manual' })
      expect(start.status).toBe(302)
      const to = new URL(start.headers.get('location') ?? '')
      const publicUrl = `http://localhost:${new URL(server.base).port}`
      expect(to.searchParams.get('redirect_uri')).toBe(`${publicUrl}/auth/oauth/github/callback`)
      expect(to.searchParams.get('client_id')).toBe('gh-id')
      expect(to.searchParams.get('response_type')).toBe('code')
      expect(to.href).not.toContain('gh-secret')
    } finally {
      await server.stop()
    }
  })
})
