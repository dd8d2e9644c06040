/**
 * The WebAuthn verification on a runtime: registers and asserts an ES256 and an Ed25519 credential
 * of the software authenticator through `@simplewebauthn/server` (Web Crypto only), and checks that
 * a bad signature is refused. Run by Node, Bun and Deno (and called inside workerd); prints `ok <algorithm>` per algorithm.
 */
import { verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server'
import { softAuthenticator } from './authenticator.js'

const origin = 'http://localhost:3000'

export const check = async (): Promise<string[]> => {
  const lines: string[] = []
  for (const algorithm of ['ES256', 'Ed25519'] as const) {
    const authenticator = softAuthenticator({ algorithm, origin })
    const challenge = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')
    const created = await authenticator.create({
      challenge,
      rp: { id: 'localhost', name: 'x' },
      user: { id: 'dXNlcg', name: 'u', displayName: 'u' },
      pubKeyCredParams: [],
    })
    const { registrationInfo } = await verifyRegistrationResponse({
      response: created,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: 'localhost',
      supportedAlgorithmIDs: [-7, -8, -257],
    })
    if (!registrationInfo) throw new Error(`${algorithm}: registration refused`)
    const assert = async (tamper: boolean) => {
      const response = await authenticator.get({ challenge, rpId: 'localhost' }, { tamper })
      try {
        return (
          await verifyAuthenticationResponse({
            response,
            expectedChallenge: challenge,
            expectedOrigin: origin,
            expectedRPID: 'localhost',
            credential: registrationInfo.credential,
          })
        ).verified
      } catch {
        return false
      }
    }
    if (!(await assert(false))) throw new Error(`${algorithm}: assertion refused`)
    if (await assert(true)) throw new Error(`${algorithm}: a bad signature was accepted`)
    lines.push(`ok ${algorithm}`)
  }
  return lines
}

// Inside workerd a worker calls check() from its fetch handler (no crypto at the top level there).
if (!('WebSocketPair' in globalThis)) for (const line of await check()) console.log(line)
