/**
 * Sealed data at rest (docs/reference/two-factor.md#the-key-at-rest): AES-256-GCM under a key derived with HKDF-SHA-256 (Web
 * Crypto) from one of the `encryptionKeys`, so a copy of the database alone yields nothing, and
 * the signing secrets play no part: rotating them never touches sealed data. The sealed text
 * names its key by a key id, so a rotated list still opens it; the user id is the additional
 * data, so a sealed value copied onto another account's row does not open.
 *
 * Formats: `v2.<key id>.<iv>.<ciphertext and tag>` (base64url), sealed under an encryption key;
 * `v1.<kid>.<iv>.<ciphertext and tag>`, sealed by 0.1 and by an app without `encryptionKeys`
 * under a signing secret (the `kid` its access tokens carry). Both open; whatever is not sealed
 * under the first key is `stale`, and is sealed again (at its next use, and by the sweep).
 */
import { keyIdOf } from './access-token.js'
import { hmacSha256Base64url } from './web.js'

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

/** How each format names and derives its keys. */
const FORMATS = {
  v1: { kidOf: keyIdOf, info: 'latchkey two-factor secret v1' },
  v2: {
    kidOf: (key: string) => hmacSha256Base64url(key, 'latchkey encryption key id').slice(0, 16),
    info: 'latchkey sealed data v2',
  },
} as const
type Version = keyof typeof FORMATS

const deriveKey = async (secret: string, info: string): Promise<CryptoKey> => {
  const material = await crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveKey'])
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: encoder.encode('latchkey'), info: encoder.encode(info) },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  )
}

export interface SecretBox {
  /** Seals `plain` for `userId` under the sealing key. */
  seal(plain: Uint8Array, userId: string): Promise<string>
  /**
   * Opens a sealed value of `userId`: the plain bytes, and whether it was sealed under another
   * key than the sealing one (then the caller re-seals it). `null` when no listed key opens it.
   */
  open(sealed: string, userId: string): Promise<{ plain: Uint8Array; stale: boolean } | null>
  /** How every value sealed under the sealing key begins: a value that does not is stale. */
  readonly sealingPrefix: string
}

/**
 * A box over the `encryptionKeys` (the first seals; every one opens) that also opens what the
 * signing `secrets` sealed (0.1). Without encryption keys (`null`) the first signing secret seals,
 * as 0.1 did.
 */
export const secretBox = (encryptionKeys: readonly string[] | null, secrets: readonly string[]): SecretBox => {
  const listed: [Version, readonly string[]][] = [
    ['v2', encryptionKeys ?? []],
    ['v1', secrets],
  ]
  const sealing: [Version, string | undefined] = encryptionKeys ? ['v2', encryptionKeys[0]] : ['v1', secrets[0]]
  const [sealVersion, sealSecret] = sealing
  if (sealSecret === undefined) throw new TypeError('secretBox: at least one key is required')
  const sealKid = FORMATS[sealVersion].kidOf(sealSecret)
  // Derived on first use, once per key.
  const keys = new Map<string, Promise<CryptoKey>>()
  const keyOf = (version: string, kid: string) => {
    const format = listed.find(([v]) => v === version)
    const secret = format?.[1].find((s) => FORMATS[format[0]].kidOf(s) === kid)
    if (!format || secret === undefined) return null
    const id = `${version}.${kid}`
    let key = keys.get(id)
    if (!key) {
      key = deriveKey(secret, FORMATS[format[0]].info)
      keys.set(id, key)
    }
    return key
  }
  const sealingPrefix = `${sealVersion}.${sealKid}.`
  return {
    sealingPrefix,
    async seal(plain, userId) {
      const iv = crypto.getRandomValues(new Uint8Array(12))
      const key = await (keyOf(sealVersion, sealKid) as Promise<CryptoKey>)
      const sealed = await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData: encoder.encode(userId) },
        key,
        plain as Uint8Array<ArrayBuffer>,
      )
      return `${sealingPrefix}${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`
    },
    async open(sealed, userId) {
      const [version, kid, ivText, dataText, ...rest] = sealed.split('.')
      if (version === undefined || kid === undefined || rest.length > 0) return null
      const key = keyOf(version, kid)
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
        return { plain: new Uint8Array(plain), stale: !sealed.startsWith(sealingPrefix) }
      } catch {
        // Not base64url, or the tag does not verify: altered, or sealed for another user.
        return null
      }
    },
  }
}
