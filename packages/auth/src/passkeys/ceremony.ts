/**
 * The WebAuthn ceremonies (docs/reference/passkeys.md), on `@simplewebauthn/server`, which verifies
 * with Web Crypto only and so runs unchanged on Node, Bun, Deno and Workers. This module makes the
 * options, keeps each challenge hashed and single use, and judges a response: the library checks
 * the type, challenge, origin, rpId hash, user presence and the signature; the counter is judged
 * here by the store's compare-and-set, so two uses of one counter cannot both pass. A ceremony
 * run in a frame of another site (`crossOrigin` in its client data) is refused here too: the
 * library lets one through when the browser names no top origin, and the site embeds no such frame
 * (docs/reference/passkeys.md#what-is-refused).
 */

import { decodeBase64urlIgnorePadding } from '@oslojs/encoding'
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server'
import { tokenHash } from '../opaque-token.js'
import type { UserRecord } from '../store/types.js'
import { base64url, randomBytes, utf8 } from '../web.js'
import type { PasskeyOptions } from './options.js'
import type { PasskeyChallengePurpose, PasskeyRecord, PasskeyStore } from './store.js'

/** Seconds a WebAuthn challenge lives (and the ceremony's timeout). */
export const PASSKEY_CHALLENGE_SECONDS = 300

/** ES256, EdDSA (Ed25519), RS256: the COSE algorithms accepted, in order of preference. */
export const PASSKEY_ALGORITHMS = [-7, -8, -257]

const TRANSPORTS = new Set<string>(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'])

/** What the server reads of a response's client data before the library judges it. */
interface ClientData {
  /** The challenge it answers. */
  challenge: string
  /** Run in a frame of another site: anything but an absent or `false` `crossOrigin`. */
  crossOrigin: boolean
}

/** A response's client data, or `null` when it names no challenge. */
const clientDataOf = (clientDataJSON: string): ClientData | null => {
  try {
    const data: unknown = JSON.parse(new TextDecoder().decode(decodeBase64urlIgnorePadding(clientDataJSON)))
    if (typeof data !== 'object' || data === null) return null
    const { challenge, crossOrigin } = data as { challenge?: unknown; crossOrigin?: unknown }
    if (typeof challenge !== 'string' || challenge.length > 1024) return null
    return { challenge, crossOrigin: crossOrigin !== undefined && crossOrigin !== false }
  } catch {
    return null
  }
}

/** The challenge a response answers, read from its client data; `null` when it has none. */
export const challengeOf = (clientDataJSON: string): string | null => clientDataOf(clientDataJSON)?.challenge ?? null

/** The WebAuthn user handle of a user: its id's UTF-8 bytes (an opaque id, no personal data). */
const userHandle = (userId: string) => base64url(utf8(userId))

export type PasskeyCore = ReturnType<typeof passkeyCore>

/** What an accepted assertion proved. */
export interface Assertion {
  ok: true
  passkey: PasskeyRecord
  /** The authenticator verified the user (PIN, biometrics): a second factor in itself. */
  userVerified: boolean
}

/** An assertion refused; `regressed`: the passkey whose counter went back (the application hears about it). */
export interface AssertionFailure {
  ok: false
  regressed?: PasskeyRecord
}
const refused: AssertionFailure = { ok: false }

export const passkeyCore = ({ store, options, now }: { store: PasskeyStore; options: PasskeyOptions; now: () => Date }) => {
  /**
   * A fresh 256-bit challenge, stored hashed (as the base64url the options carry) for `purpose`.
   * Answers the bytes: the library base64url-encodes them into the options.
   */
  const challenge = async (purpose: PasskeyChallengePurpose, userId: string | null, boundTo: string | null = null) => {
    const bytes = Uint8Array.from(randomBytes(32))
    const value = base64url(bytes)
    const at = now()
    await store.createPasskeyChallenge(
      {
        hash: tokenHash(value),
        purpose,
        userId,
        boundTo,
        expiresAt: new Date(at.getTime() + PASSKEY_CHALLENGE_SECONDS * 1000),
      },
      at,
    )
    return bytes
  }
  const origins = [...options.origins]

  return {
    /** Creation options for `user`: a resident key, user verification preferred, no attestation. */
    async registrationOptions(user: UserRecord, existing: PasskeyRecord[]): Promise<PublicKeyCredentialCreationOptionsJSON> {
      return generateRegistrationOptions({
        rpName: options.rpName,
        rpID: options.rpId,
        userName: user.email,
        userDisplayName: user.name,
        userID: Uint8Array.from(utf8(user.id)),
        challenge: await challenge('register', user.id),
        timeout: PASSKEY_CHALLENGE_SECONDS * 1000,
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports })),
        authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
        supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
      })
    },

    /**
     * Request options. Without `allow`, discoverable (the browser offers the site's passkeys,
     * also in the email field's autofill); with it, only those credentials.
     */
    async requestOptions(
      purpose: Exclude<PasskeyChallengePurpose, 'register'>,
      binding: { userId: string | null; boundTo: string | null } = { userId: null, boundTo: null },
      allow: PasskeyRecord[] = [],
    ): Promise<PublicKeyCredentialRequestOptionsJSON> {
      return generateAuthenticationOptions({
        rpID: options.rpId,
        challenge: await challenge(purpose, binding.userId, binding.boundTo),
        timeout: PASSKEY_CHALLENGE_SECONDS * 1000,
        userVerification: 'preferred',
        allowCredentials: allow.map((p) => ({ id: p.id, transports: p.transports })),
      })
    },

    /**
     * Verifies a registration answering a challenge that `userId` asked for. Answers the passkey
     * to store (without a name), or `null` for any refusal, which spends the challenge. `prove`
     * runs once the response is judged good and before the challenge is spent: when it throws (a
     * wrong mailed code), the challenge stays usable for the same response with the right code.
     */
    async verifyRegistration(userId: string, response: RegistrationResponseJSON, prove: () => Promise<void>) {
      const data = clientDataOf(response.response.clientDataJSON)
      if (!data) return null
      const hash = tokenHash(data.challenge)
      const refuse = async () => {
        await store.claimPasskeyChallenge(hash, 'register', now())
        return null
      }
      const live = await store.findPasskeyChallenge(hash, 'register', now())
      if (!live || live.userId !== userId || data.crossOrigin) return refuse()
      let info: Awaited<ReturnType<typeof verifyRegistrationResponse>>['registrationInfo']
      try {
        ;({ registrationInfo: info } = await verifyRegistrationResponse({
          response,
          expectedChallenge: data.challenge,
          expectedOrigin: origins,
          expectedRPID: options.rpId,
          requireUserVerification: false,
          supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
        }))
      } catch {
        return refuse()
      }
      if (!info) return refuse()
      await prove()
      // Claimed only now, atomically: of concurrent registrations with one response one wins.
      const claimed = await store.claimPasskeyChallenge(hash, 'register', now())
      if (!claimed || claimed.userId !== userId) return null
      const { credential } = info
      return {
        id: credential.id,
        userId,
        publicKey: base64url(credential.publicKey),
        counter: credential.counter,
        transports: (response.response.transports ?? []).filter((t) => TRANSPORTS.has(t)),
        multiDevice: info.credentialDeviceType === 'multiDevice',
        backedUp: info.credentialBackedUp,
        createdAt: now(),
      }
    },

    /**
     * Verifies an assertion answering a challenge of `purpose` (`expected`: the challenge the
     * caller names), spending it, and records the use. `userId` and `boundTo` restrict whose
     * passkey and which binding may answer.
     */
    async verifyAssertion(
      response: AuthenticationResponseJSON,
      purpose: Exclude<PasskeyChallengePurpose, 'register'>,
      expected: { challenge: string; userId?: string; boundTo?: string },
    ): Promise<Assertion | AssertionFailure> {
      const claimed = await store.claimPasskeyChallenge(tokenHash(expected.challenge), purpose, now())
      if (!claimed) return refused
      if (expected.boundTo !== undefined && claimed.boundTo !== expected.boundTo) return refused
      const passkey = await store.findPasskey(response.id)
      if (!passkey) return refused
      if (expected.userId !== undefined && passkey.userId !== expected.userId) return refused
      if (claimed.userId !== null && passkey.userId !== claimed.userId) return refused
      // A discoverable credential names its user; it must be the passkey's.
      if (response.response.userHandle !== undefined && response.response.userHandle !== userHandle(passkey.userId))
        return refused
      if (clientDataOf(response.response.clientDataJSON)?.crossOrigin !== false) return refused
      let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>
      try {
        verified = await verifyAuthenticationResponse({
          response,
          expectedChallenge: expected.challenge,
          expectedOrigin: origins,
          expectedRPID: options.rpId,
          // The counter is judged below, atomically; the library sees none so it judges none.
          credential: {
            id: passkey.id,
            publicKey: Uint8Array.from(decodeBase64urlIgnorePadding(passkey.publicKey)),
            counter: 0,
            transports: passkey.transports,
          },
          requireUserVerification: false,
        })
      } catch {
        return refused
      }
      if (!verified.verified) return refused
      const { newCounter, userVerified, credentialBackedUp } = verified.authenticationInfo
      if (!(await store.usePasskey({ id: passkey.id, counter: newCounter, backedUp: credentialBackedUp, now: now() })))
        return (await store.findPasskey(passkey.id)) ? { ok: false, regressed: passkey } : refused
      return { ok: true, passkey, userVerified }
    },
  }
}
