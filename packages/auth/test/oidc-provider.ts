/**
 * A real OpenID Connect provider for the tests: `oidc-provider` started in process on a loopback
 * port, PKCE required, one confidential client whose redirect URI is the harness app's. Its
 * interaction (login and consent) signs in whoever the test names (`as(accountId)`), so a test
 * walks the whole redirect dance with {@link browser}: the start, the provider, the callback.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'

export const CLIENT_ID = 'latchkey-test'
export const CLIENT_SECRET = 'client-secret-that-is-long-enough-0123456789'

export interface Account {
  email?: string
  email_verified?: boolean
  name?: string
}

export interface TestProvider {
  issuer: string
  /** The account the next interaction signs in; `accounts` holds their claims. */
  as(accountId: string, claims?: Account): void
  accounts: Map<string, Account>
  close(): Promise<void>
}

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** Starts the provider; `conformIdTokenClaims: true` (its default) puts the email claims only in userinfo. */
export const startProvider = async ({
  redirectUri,
  conformIdTokenClaims = true,
}: {
  redirectUri: string
  conformIdTokenClaims?: boolean
}): Promise<TestProvider> => {
  const accounts = new Map<string, Account>()
  let current = 'alice'
  let provider: Provider | null = null
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!provider) return res.end()
    if (req.url?.startsWith('/interaction/')) {
      void (async () => {
        const p = provider as Provider
        const details = await p.interactionDetails(req, res)
        const grant = new p.Grant({ accountId: current, clientId: String(details.params.client_id) })
        grant.addOIDCScope(String(details.params.scope))
        const grantId = await grant.save()
        await p.interactionFinished(
          req,
          res,
          { login: { accountId: current }, consent: { grantId } },
          { mergeWithLastSubmission: false },
        )
      })().catch((err) => {
        res.statusCode = 500
        res.end(String(err))
      })
      return
    }
    provider.callback()(req, res)
  })
  const issuer = await listen(server)
  provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    conformIdTokenClaims,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['oidc-provider-test-cookie-key-0123456789'] },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({ sub, ...(accounts.get(sub) ?? {}) }),
    }),
  })
  return {
    issuer,
    accounts,
    as(accountId, claims) {
      current = accountId
      if (claims) accounts.set(accountId, claims)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A cookie jar: `name=value` of every cookie set, sent back everywhere (paths ignored). */
const jar = () => {
  const cookies = new Map<string, string>()
  return {
    take(res: Response) {
      for (const line of res.headers.getSetCookie()) {
        const [pair = ''] = line.split(';')
        const at = pair.indexOf('=')
        const name = pair.slice(0, at)
        const value = pair.slice(at + 1)
        if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') cookies.delete(name)
        else cookies.set(name, value)
      }
    },
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    get: (name: string) => cookies.get(name),
    set: (name: string, value: string) => cookies.set(name, value),
    delete: (name: string) => cookies.delete(name),
  }
}

/**
 * A browser for the redirect dance: `app` answers the app's paths (the harness's `app.request`),
 * anything else is fetched over HTTP without following redirects; each side has its cookie jar.
 */
export const browser = (app: { request(path: string, init: RequestInit): Response | Promise<Response> }, appOrigin: string) => {
  const appJar = jar()
  const providerJar = jar()
  const get = async (url: string) => {
    const target = new URL(url, appOrigin)
    if (target.origin === appOrigin) {
      const res = await app.request(`${target.pathname}${target.search}`, {
        headers: { Cookie: appJar.header(), 'X-Forwarded-For': '203.0.113.7' },
      })
      appJar.take(res)
      return res
    }
    const res = await fetch(target, { redirect: 'manual', headers: { Cookie: providerJar.header() } })
    providerJar.take(res)
    return res
  }
  return {
    cookies: appJar,
    get,
    /** Follows redirects from `url` until an answer of the app that is not a redirect to the provider, or a non-redirect. */
    async walk(url: string, { stopAtCallback = false } = {}) {
      let base = new URL(url, appOrigin)
      let res = await get(base.href)
      let location = res.headers.get('location')
      for (let hops = 0; location && hops < 12; hops++) {
        const next = new URL(location, base)
        if (next.origin === appOrigin && !next.pathname.includes('/oauth/')) return { res, location: location as string }
        if (stopAtCallback && next.pathname.endsWith('/callback')) return { res, location: next.href }
        base = next
        res = await get(next.href)
        location = res.headers.get('location')
      }
      return { res, location }
    },
  }
}
