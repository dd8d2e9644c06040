/**
 * The reference app's passkey settings (docs/reference/operations.md#passkeys): the relying party
 * is `PUBLIC_URL`'s host, or `PASSKEY_RP_ID` (a parent domain of it); the origins are
 * `PUBLIC_URL`'s, and each trusted front end's on that domain. Browsers refuse an IP address as
 * an rpId and passkeys on plain http (but on localhost): passkeys then stay off, with a reason.
 */
import type { PasskeyOptions } from '@latchkey/auth'

/** What the browser shows while a passkey is created. */
export const PASSKEY_RP_NAME = 'Latchkey Todo'

/** An IPv4 address, or an IPv6 one as a URL's hostname writes it (`[::1]`). */
export const isIpHost = (hostname: string) => /^\d{1,3}(?:\.\d{1,3}){3}$/.test(hostname) || hostname.startsWith('[')

/** `hostname` is `rpId` or a subdomain of it. */
export const isOnDomain = (hostname: string, rpId: string) => hostname === rpId || hostname.endsWith(`.${rpId}`)

const isLocalhost = (hostname: string) => hostname === 'localhost' || hostname.endsWith('.localhost')

/**
 * The `passkeys` option for `publicUrl`, or why there is none. The origins are `publicUrl`'s and
 * the trusted front ends' that are on the rpId over https (or on localhost).
 */
export const passkeySettings = (
  publicUrl: string,
  rpIdOverride: string | null,
  trustedOrigins: readonly string[] = [],
): { passkeys: PasskeyOptions; reason: null } | { passkeys: null; reason: string } => {
  const { hostname } = new URL(publicUrl)
  if (rpIdOverride === null && isIpHost(hostname))
    return {
      passkeys: null,
      reason: `PUBLIC_URL's host ${hostname} is an IP address, which cannot be a passkey rpId: serve the app under a domain name, or set PASSKEY_RP_ID to the domain of a front end in TRUSTED_ORIGINS`,
    }
  const rpId = rpIdOverride ?? hostname
  const usable = (entry: string) => {
    const url = new URL(entry)
    return isOnDomain(url.hostname, rpId) && (url.protocol === 'https:' || isLocalhost(url.hostname))
  }
  const origins = [...new Set([publicUrl, ...trustedOrigins].filter(usable).map((entry) => new URL(entry).origin))]
  if (origins.length === 0)
    return {
      passkeys: null,
      reason: `no page of PUBLIC_URL or TRUSTED_ORIGINS is on ${rpId} over https: browsers offer passkeys only on https and on localhost`,
    }
  return { passkeys: { rpId, rpName: PASSKEY_RP_NAME, origins }, reason: null }
}
