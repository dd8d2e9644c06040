/**
 * A provider that sends what a real one never does, for the tests: an OpenID Connect issuer on a
 * loopback port whose token endpoint answers whatever ID token the test makes (wrong `iss`, `aud`
 * or `nonce`, `alg: none`, an unknown `kid`, a string `email_verified`, an expired token, a second
 * audience without `azp`), and a GitHub-shaped plain OAuth 2.0 server. Each records the token
 * requests it got, so a test can check the PKCE verifier went along.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT, UnsecuredJWT } from 'jose'

export const HOSTILE_CLIENT = { clientId: 'hostile-client', clientSecret: 'hostile-secret-that-is-long-enough-0123' }

type Handler = (path: string, body: URLSearchParams) => unknown

const serve = async (handle: Handler, port = 0) => {
  const server: Server = createServer((req, res) => {
    let raw = ''
    req.on('data', (chunk) => {
      raw += chunk
    })
    req.on('end', async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname
      const answer = await handle(path, new URLSearchParams(raw))
      if (answer === undefined) {
        res.statusCode = 404
        return res.end()
      }
      res.setHeader('Content-Type', 'application/json')
      res.end(JSON.stringify(answer))
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A loopback port nothing listens on (yet). */
export const freePort = async () => {
  const probe = await serve(() => undefined)
  await probe.close()
  return Number(new URL(probe.url).port)
}

export { serve }

/** `tenantIssuer`: the metadata names this issuer (with `{tenantid}`, as Microsoft's multi-tenant metadata does). */
export const startHostileProvider = async ({
  iss9207 = true,
  port = 0,
  tenantIssuer,
}: {
  iss9207?: boolean
  port?: number
  tenantIssuer?: (url: string) => string
} = {}) => {
  const { publicKey, privateKey } = await generateKeyPair('RS256')
  const other = await generateKeyPair('RS256')
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }
  const tokenRequests: URLSearchParams[] = []
  let issuer = ''
  let idToken = async (): Promise<string | undefined> => undefined
  let userinfo: Record<string, unknown> = {}
  const server = await serve((path, body) => {
    if (path === '/.well-known/openid-configuration')
      return {
        issuer: tenantIssuer ? tenantIssuer(issuer) : issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        userinfo_endpoint: `${issuer}/userinfo`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        ...(iss9207 ? { authorization_response_iss_parameter_supported: true } : {}),
      }
    if (path === '/jwks') return { keys: [jwk] }
    if (path === '/userinfo') return userinfo
    if (path === '/token') {
      tokenRequests.push(body)
      return (async () => ({
        access_token: `at-${crypto.randomUUID()}`,
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: `rt-${crypto.randomUUID()}`,
        id_token: await idToken(),
      }))()
    }
    return undefined
  }, port)
  issuer = server.url
  return {
    issuer,
    tokenRequests,
    close: server.close,
    /** The ID token the token endpoint answers from now on: `claims`, signed as `how` says. */
    respond(claims: JWTPayload, how: 'signed' | 'none' | 'unknown-kid' = 'signed') {
      idToken = async () => {
        if (how === 'none') return new UnsecuredJWT(claims).encode()
        const key = how === 'unknown-kid' ? other.privateKey : privateKey
        return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: how === 'unknown-kid' ? 'k2' : 'k1' }).sign(key)
      }
    },
    setUserinfo(claims: Record<string, unknown>) {
      userinfo = claims
    },
  }
}

export interface GitHubAccount {
  id: number
  login: string
  name?: string | null
  emails: { email: string; primary: boolean; verified: boolean }[]
}

/** A GitHub-shaped plain OAuth 2.0 server: its token endpoint, `/user` and `/user/emails`. */
export const startGitHubFake = async () => {
  let account: GitHubAccount = { id: 99999, login: 'octo', name: 'Octo Cat', emails: [] }
  const tokenRequests: URLSearchParams[] = []
  const server = await serve((path, body) => {
    if (path === '/login/oauth/access_token') {
      tokenRequests.push(body)
      return { access_token: `gho_${crypto.randomUUID()}`, token_type: 'bearer', scope: 'read:user,user:email' }
    }
    if (path === '/user') return { id: account.id, login: account.login, name: account.name ?? null }
    if (path === '/user/emails') return account.emails
    return undefined
  })
  return {
    url: server.url,
    tokenRequests,
    close: server.close,
    as(next: GitHubAccount) {
      account = next
    },
  }
}
