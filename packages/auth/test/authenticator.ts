/**
 * A software authenticator for the tests: it makes real WebAuthn registration and assertion
 * responses (attestation `none`) with ES256 (P-256) or Ed25519 keys by Web Crypto, following
 * WebAuthn Level 3 §6.1 (authenticator data), §6.5 (attestation object) and §5.8.1 (client data).
 * The test decides what a browser or a rogue authenticator would change: the origin, the rpId,
 * the flags, the counter, the signature.
 */
import { createHash, webcrypto } from 'node:crypto'

type CryptoKeyPair = webcrypto.CryptoKeyPair
const { subtle } = webcrypto

type Cbor = number | string | Uint8Array | Cbor[] | Map<number | string, Cbor>

/** A CBOR encoder (RFC 8949) for what an attestation needs: integers, strings, bytes, arrays, maps. */
const cbor = (value: Cbor): Uint8Array => {
  const head = (major: number, n: number): number[] => {
    if (n < 24) return [(major << 5) | n]
    if (n < 0x100) return [(major << 5) | 24, n]
    if (n < 0x10000) return [(major << 5) | 25, n >> 8, n & 0xff]
    return [(major << 5) | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]
  }
  const parts: number[] = []
  const write = (v: Cbor) => {
    if (typeof v === 'number') parts.push(...(v >= 0 ? head(0, v) : head(1, -1 - v)))
    else if (typeof v === 'string') {
      const bytes = new TextEncoder().encode(v)
      parts.push(...head(3, bytes.length), ...bytes)
    } else if (v instanceof Uint8Array) parts.push(...head(2, v.length), ...v)
    else if (Array.isArray(v)) {
      parts.push(...head(4, v.length))
      for (const item of v) write(item)
    } else {
      parts.push(...head(5, v.size))
      for (const [k, item] of v) {
        write(k)
        write(item)
      }
    }
  }
  write(value)
  return Uint8Array.from(parts)
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url')
const fromB64url = (text: string) => new Uint8Array(Buffer.from(text, 'base64url'))
const sha256 = (data: Uint8Array | string) => new Uint8Array(createHash('sha256').update(data).digest())
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]))
const u32 = (n: number) => Uint8Array.from([(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff])

/** ECDSA r‖s (Web Crypto) → ASN.1 DER (what WebAuthn's ES256 signatures are). */
const derSignature = (raw: Uint8Array) => {
  const int = (bytes: Uint8Array) => {
    let i = 0
    while (i < bytes.length - 1 && bytes[i] === 0) i++
    let v = bytes.slice(i)
    if ((v[0] as number) & 0x80) v = concat(Uint8Array.of(0), v)
    return concat(Uint8Array.of(0x02, v.length), v)
  }
  const body = concat(int(raw.slice(0, 32)), int(raw.slice(32)))
  return concat(Uint8Array.of(0x30, body.length), body)
}

export const FLAGS = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const

export type Algorithm = 'ES256' | 'Ed25519'

interface Ceremony {
  origin?: string
  rpId?: string
  /** The flags to set; default: user present and verified, backed up. */
  flags?: number
  /** The challenge to sign instead of the options' one. */
  challenge?: string
  /** `webauthn.create` / `webauthn.get` unless overridden. */
  type?: string
  /** The ceremony ran in a frame of another site (`crossOrigin: true`, and the frame's top origin when given). */
  crossOrigin?: { topOrigin?: string }
}

interface Credential {
  id: string
  userHandle: string
  keys: CryptoKeyPair
  counter: number
}

export interface CreationOptions {
  challenge: string
  rp: { id?: string; name: string }
  user: { id: string; name: string; displayName: string }
  pubKeyCredParams: { alg: number; type: string }[]
  excludeCredentials?: { id: string }[]
  authenticatorSelection?: { residentKey?: string; userVerification?: string }
  attestation?: string
}

export interface RequestOptions {
  challenge: string
  rpId?: string
  allowCredentials?: { id: string }[]
  userVerification?: string
}

export const softAuthenticator = ({
  algorithm = 'ES256',
  origin = 'http://localhost:3000',
  /** Counts up from here at each assertion; `null`: an authenticator that keeps no counter (always 0). */
  counterStart = 0 as number | null,
} = {}) => {
  const credentials: Credential[] = []
  const rpHash = (rpId: string) => sha256(rpId)
  const clientData = (type: string, challenge: string, o: string, framed?: { topOrigin?: string }) =>
    new TextEncoder().encode(JSON.stringify({ type, challenge, origin: o, crossOrigin: framed !== undefined, ...framed }))

  const newKeys = (): Promise<CryptoKeyPair> =>
    algorithm === 'ES256'
      ? subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])
      : (subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']) as Promise<CryptoKeyPair>)

  const coseKey = async (keys: CryptoKeyPair) => {
    const jwk = await subtle.exportKey('jwk', keys.publicKey)
    if (algorithm === 'ES256')
      return cbor(
        new Map<number, Cbor>([
          [1, 2],
          [3, -7],
          [-1, 1],
          [-2, fromB64url(jwk.x as string)],
          [-3, fromB64url(jwk.y as string)],
        ]),
      )
    return cbor(
      new Map<number, Cbor>([
        [1, 1],
        [3, -8],
        [-1, 6],
        [-2, fromB64url(jwk.x as string)],
      ]),
    )
  }

  const sign = async (keys: CryptoKeyPair, data: Uint8Array) =>
    algorithm === 'ES256'
      ? derSignature(new Uint8Array(await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, keys.privateKey, data)))
      : new Uint8Array(await subtle.sign({ name: 'Ed25519' }, keys.privateKey, data))

  const defaultFlags = FLAGS.UP | FLAGS.UV | FLAGS.BE | FLAGS.BS

  return {
    credentials,
    /** `navigator.credentials.create()`: a new resident credential, attestation `none`. */
    async create(options: CreationOptions, ceremony: Ceremony = {}) {
      const rpId = ceremony.rpId ?? options.rp.id ?? 'localhost'
      const keys = await newKeys()
      const id = b64url(crypto.getRandomValues(new Uint8Array(16)))
      const credential: Credential = { id, userHandle: options.user.id, keys, counter: counterStart ?? 0 }
      credentials.push(credential)
      const idBytes = fromB64url(id)
      const authData = concat(
        rpHash(rpId),
        Uint8Array.of((ceremony.flags ?? defaultFlags) | FLAGS.AT),
        u32(counterStart ?? 0),
        new Uint8Array(16),
        Uint8Array.of(idBytes.length >> 8, idBytes.length & 0xff),
        idBytes,
        await coseKey(keys),
      )
      const attestationObject = cbor(
        new Map<string, Cbor>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', authData],
        ]),
      )
      return {
        id,
        rawId: id,
        type: 'public-key' as const,
        response: {
          clientDataJSON: b64url(
            clientData(
              ceremony.type ?? 'webauthn.create',
              ceremony.challenge ?? options.challenge,
              ceremony.origin ?? origin,
              ceremony.crossOrigin,
            ),
          ),
          attestationObject: b64url(attestationObject),
          transports: ['internal', 'hybrid'],
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform' as const,
      }
    },

    /** `navigator.credentials.get()`: an assertion by `credential` (default: the last one made). */
    async get(
      options: RequestOptions,
      ceremony: Ceremony & { credential?: Credential; counter?: number; tamper?: boolean } = {},
    ) {
      const credential = ceremony.credential ?? credentials.at(-1)
      if (!credential) throw new Error('softAuthenticator: no credential')
      const rpId = ceremony.rpId ?? options.rpId ?? 'localhost'
      if (counterStart !== null) credential.counter++
      const counter = ceremony.counter ?? (counterStart === null ? 0 : credential.counter)
      const authenticatorData = concat(rpHash(rpId), Uint8Array.of(ceremony.flags ?? defaultFlags), u32(counter))
      const clientDataJSON = clientData(
        ceremony.type ?? 'webauthn.get',
        ceremony.challenge ?? options.challenge,
        ceremony.origin ?? origin,
        ceremony.crossOrigin,
      )
      const signature = await sign(credential.keys, concat(authenticatorData, sha256(clientDataJSON)))
      if (ceremony.tamper) signature[signature.length - 1] = ((signature.at(-1) as number) ^ 0x01) & 0xff
      return {
        id: credential.id,
        rawId: credential.id,
        type: 'public-key' as const,
        response: {
          clientDataJSON: b64url(clientDataJSON),
          authenticatorData: b64url(authenticatorData),
          signature: b64url(signature),
          userHandle: credential.userHandle,
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform' as const,
      }
    },
  }
}
