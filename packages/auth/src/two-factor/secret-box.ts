/**
 * TOTP secrets at rest (docs/reference/two-factor.md#the-key-at-rest): AES-256-GCM under a key derived from the signing secret
 * with HKDF-SHA-256 (Web Crypto), so a copy of the database alone yields no secret. The sealed
 * text names the secret it was sealed under by its `kid` (the one access tokens carry), so a
 * rotated secret list still opens it (docs/reference/operations.md#rotating-the-secret); the user id is the additional data, so a sealed
 * secret copied onto another account's row does not open.
 *
 * Format: `v1.<kid>.<iv, base64url>.<ciphertext and tag, base64url>`.
 */
import { keyIdOf } from '../access-token.js'

const VERSION = 'v1'
const encoder = new TextEncoder()
type CryptoKey = Awaited<ReturnType<typeof crypto.subtle.deriveKey>>

const toBase64Url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '')

const fromBase64Url = (text: string): Uint8Array<ArrayBuffer> | null => {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'))
  return Uint8Array.from(binary, (ch) => ch.charCodeAt(0))
}

const deriveKey = async (secret: string): Promise<CryptoKey> => {
  const material = await crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveKey'])
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: encoder.encode('latchkey'), info: encoder.encode('latchkey two-factor secret v1') },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  )
}

export interface SecretBox {
  /** Seals `plain` for `userId` under the first secret. */
  seal(plain: Uint8Array, userId: string): Promise<string>
  /**
   * Opens a sealed value of `userId`: the plain bytes, and whether it was sealed under another
   * secret than the first (then the caller re-seals it). `null` when no current secret opens it.
   */
  open(sealed: string, userId: string): Promise<{ plain: Uint8Array; stale: boolean } | null>
}

/** A box over the secrets of `createAuth` (the first seals; every one opens). */
export const secretBox = (secrets: readonly string[]): SecretBox => {
  const [first] = secrets
  if (first === undefined) throw new TypeError('secretBox: at least one secret is required')
  const firstKid = keyIdOf(first)
  // Derived on first use, once per secret.
  const keys = new Map<string, Promise<CryptoKey>>()
  const keyOf = (kid: string) => {
    const secret = secrets.find((s) => keyIdOf(s) === kid)
    if (secret === undefined) return null
    let key = keys.get(kid)
    if (!key) {
      key = deriveKey(secret)
      keys.set(kid, key)
    }
    return key
  }
  return {
    async seal(plain, userId) {
      const iv = crypto.getRandomValues(new Uint8Array(12))
      const key = await (keyOf(firstKid) as Promise<CryptoKey>)
      const sealed = await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData: encoder.encode(userId) },
        key,
        plain as Uint8Array<ArrayBuffer>,
      )
      return [VERSION, firstKid, toBase64Url(iv), toBase64Url(new Uint8Array(sealed))].join('.')
    },
    async open(sealed, userId) {
      const [version, kid, ivText, dataText, ...rest] = sealed.split('.')
      if (version !== VERSION || kid === undefined || rest.length > 0) return null
      const key = keyOf(kid)
      if (!key) return null
      try {
        const iv = fromBase64Url(ivText ?? '')
        const data = fromBase64Url(dataText ?? '')
        if (!iv || !data || iv.length !== 12) return null
        const plain = await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv, additionalData: encoder.encode(userId) },
          await key,
          data,
        )
        return { plain: new Uint8Array(plain), stale: kid !== firstKid }
      } catch {
        // Not base64url, or the tag does not verify: altered, or sealed for another user.
        return null
      }
    },
  }
}
