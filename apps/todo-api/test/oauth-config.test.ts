/**
 * Social sign-in in the reference server's environment: the ready providers from their client id
 * and secret, any OpenID Connect provider from `AUTH_OIDC_PROVIDERS`, the provider list a front
 * end reads, a start that sends the browser back while a provider is down, and every malformed
 * value a one-line refusal naming its variable.
 */
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { randomSecret, runServerToExit, startServer } from './support.js'

const base = { AUTH_SECRET: randomSecret(), NODE_ENV: 'development' }
const oidc = (entry: Record<string, unknown>) =>
  JSON.stringify([{ id: 'corp', name: 'Corp', issuer: 'https://sso.corp.example', clientId: 'c', clientSecret: 's', ...entry }])

describe('social sign-in configuration', { timeout: 60_000 }, () => {
  it('reads the ready providers and AUTH_OIDC_PROVIDERS, in order', () => {
    const config = loadConfig({
      ...base,
      GITHUB_CLIENT_ID: 'gh-id',
      GITHUB_CLIENT_SECRET: 'gh-secret',
      GOOGLE_CLIENT_ID: 'g-id.apps.googleusercontent.com',
      GOOGLE_CLIENT_SECRET: 'g-secret',
      AUTH_OIDC_PROVIDERS: oidc({ linkByEmail: true }),
    })
    expect(config.providers.map((p) => p.id)).toEqual(['google', 'github', 'corp'])
    expect(loadConfig(base).providers).toEqual([])
  })

  it('refuses each malformed value with a message naming the variable', () => {
    const refused = (env: Record<string, string>) => {
      try {
        loadConfig({ ...base, ...env })
      } catch (err) {
        return (err as Error).message
      }
      throw new Error('accepted')
    }
    expect(refused({ GOOGLE_CLIENT_ID: 'only-the-id' })).toMatch(/^GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET/)
    expect(refused({ MICROSOFT_CLIENT_SECRET: 'only-the-secret' })).toMatch(/MICROSOFT_CLIENT_ID/)
    expect(refused({ AUTH_OIDC_PROVIDERS: '{not json' })).toMatch(/^AUTH_OIDC_PROVIDERS .*JSON/)
    expect(refused({ AUTH_OIDC_PROVIDERS: '{}' })).toMatch(/^AUTH_OIDC_PROVIDERS must be a JSON array/)
    expect(refused({ AUTH_OIDC_PROVIDERS: oidc({ issuer: 'http://sso.corp.example' }) })).toMatch(
      /^AUTH_OIDC_PROVIDERS\[0\]\.issuer must be an https URL/,
    )
    expect(refused({ AUTH_OIDC_PROVIDERS: oidc({ id: 'Bad Id' }) })).toMatch(/^AUTH_OIDC_PROVIDERS\[0\]\.id/)
    expect(refused({ AUTH_OIDC_PROVIDERS: oidc({ clientSecret: undefined }) })).toMatch(/clientSecret is required/)
    expect(refused({ AUTH_OIDC_PROVIDERS: oidc({ linkByEmail: 'yes' }) })).toMatch(/linkByEmail must be/)
    expect(refused({ AUTH_OIDC_PROVIDERS: oidc({ secret: 'x' }) })).toMatch(/unknown field "secret"/)
    expect(refused({ AUTH_OIDC_PROVIDERS: oidc({ id: 'github' }), GITHUB_CLIENT_ID: 'a', GITHUB_CLIENT_SECRET: 'b' })).toMatch(
      /repeats the provider id "github"/,
    )
  })

  it('the server refuses a malformed AUTH_OIDC_PROVIDERS with one line on stderr', async () => {
    const result = await runServerToExit({ ...base, AUTH_OIDC_PROVIDERS: '[{' })
    expect(result.code).not.toBe(0)
    const lines = result.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/AUTH_OIDC_PROVIDERS/)
  })

  it('serves the provider list, and starts with a provider that cannot be reached', async () => {
    const server = await startServer({
      env: {
        AUTH_OIDC_PROVIDERS: oidc({ issuer: 'http://127.0.0.1:9/unreachable' }),
        GITHUB_CLIENT_ID: 'a',
        GITHUB_CLIENT_SECRET: 'b',
      },
    })
    try {
      const list = await fetch(`${server.base}/auth/oauth/providers`)
      expect(await list.json()).toEqual([
        { id: 'github', name: 'GitHub' },
        { id: 'corp', name: 'Corp' },
      ])
      const start = await fetch(`${server.base}/auth/oauth/corp?returnTo=/`, { redirect: 'manual' })
      expect(start.status).toBe(302)
      expect(start.headers.get('location')).toBe('/?error=provider_unavailable&provider=corp')
      expect((await fetch(`${server.base}/health`)).status).toBe(200)
      const gh = await fetch(`${server.base}/auth/oauth/github`, { redirect: 'manual' })
      expect(new URL(gh.headers.get('location') ?? '').origin).toBe('https://github.com')
    } finally {
      await server.stop()
    }
  })
})
