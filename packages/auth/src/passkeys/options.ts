/**
 * The `passkeys` option (docs/reference/passkeys.md#options), checked once at construction: a
 * browser refuses a ceremony whose relying party id is not the page's host or a parent domain of
 * it (WebAuthn Level 3, §5.1.3 step 8), so an origin outside `rpId` is a mistake to name now.
 */
import { fail } from '../option-checks.js'

export interface PasskeyOptions {
  /** The relying party id: a domain, without scheme or port (`example.com`, `localhost`). */
  rpId: string
  /** The name the browser shows while creating a passkey. */
  rpName: string
  /** The origins whose pages may use the passkeys, e.g. `https://app.example.com`. */
  origins: readonly string[]
}

/** The slice of `createAuth`'s options that turns passkeys on. */
export interface PasskeysOption {
  /**
   * Passkeys (docs/reference/passkeys.md): without this option the passkey routes are not mounted.
   * `rpId` is the domain the passkeys belong to (the site's host or a parent of it), `rpName` what
   * the browser shows, `origins` every origin whose pages may use them (each on `rpId` or a
   * subdomain of it; https, or http on localhost).
   *
   * @example
   * passkeys: { rpId: 'example.com', rpName: 'Example', origins: ['https://app.example.com'] }
   */
  passkeys?: PasskeyOptions
}

export interface ResolvedPasskeysOption {
  /** `null`: passkeys are off. */
  passkeys: PasskeyOptions | null
}

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

const isLocalhost = (host: string) => host === 'localhost' || host.endsWith('.localhost')

const resolvePasskeys = (options: unknown): PasskeyOptions => {
  if (typeof options !== 'object' || options === null) return fail('passkeys', 'must be { rpId, rpName, origins }')
  const { rpId, rpName, origins } = options as Record<string, unknown>
  if (typeof rpId !== 'string' || !DOMAIN.test(rpId) || /^[0-9.]+$/.test(rpId))
    fail('passkeys.rpId', 'must be a domain such as example.com (lower case, no scheme, port or path)')
  if (typeof rpName !== 'string' || rpName.trim().length === 0 || rpName.length > 64)
    fail('passkeys.rpName', 'must be 1 to 64 characters')
  if (!Array.isArray(origins) || origins.length === 0) fail('passkeys.origins', 'must list at least one origin')
  const listed: unknown[] = origins as unknown[]
  const resolved: string[] = []
  for (const [i, entry] of listed.entries()) {
    let url: URL | null = null
    try {
      url = typeof entry === 'string' ? new URL(entry) : null
    } catch {}
    const option = `passkeys.origins[${i}]`
    if (!url || url.origin === 'null' || url.origin !== String(entry).replace(/\/$/, ''))
      fail(option, 'must be an origin such as https://app.example.com (scheme, host and port only)')
    const { hostname, protocol, origin } = url as URL
    if (hostname !== rpId && !hostname.endsWith(`.${rpId}`)) fail(option, `must be on ${String(rpId)} or a subdomain of it`)
    if (protocol !== 'https:' && !(protocol === 'http:' && isLocalhost(hostname)))
      fail(option, 'must be https (http only on localhost)')
    resolved.push(origin)
  }
  return { rpId: rpId as string, rpName: rpName as string, origins: resolved }
}

export const resolvePasskeysOption = (options: PasskeysOption): ResolvedPasskeysOption => ({
  passkeys: options.passkeys === undefined ? null : resolvePasskeys(options.passkeys),
})
