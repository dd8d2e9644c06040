/** Two-factor set-up for route tests: codes come from `otpauth`, an implementation independent of ours. */
import * as OTPAuth from 'otpauth'
import { expect } from 'vitest'
import { type harness, PASSWORD } from './harness.js'

type H = ReturnType<typeof harness>

export const STEP_MS = 30_000

/** Signs up `email`, sets up and enables two-factor with the code of the current step. */
export const withTwoFactor = async (h: H, email = 'ada@example.com') => {
  const user = await h.signup(email)
  await h.verifyEmail(email)
  const setup = await h.request('POST', '/auth/two-factor/setup', { json: { currentPassword: PASSWORD }, headers: user.bearer })
  expect(setup.status).toBe(200)
  const { secret, uri } = (await setup.json()) as { secret: string; uri: string }
  const totp = OTPAuth.URI.parse(uri) as OTPAuth.TOTP
  expect(totp.secret.base32).toBe(secret)
  /** The code `steps` steps from now by the frozen clock. */
  const code = (steps = 0) => totp.generate({ timestamp: h.clock.now().getTime() + steps * STEP_MS })
  const emailCode = await h.emailCode(email)
  const enable = await h.request('POST', '/auth/two-factor/enable', { json: { code: code(), emailCode }, headers: user.bearer })
  expect(enable.status).toBe(200)
  const { recoveryCodes } = (await enable.json()) as { recoveryCodes: string[] }
  // The enabling code is spent for its window: the tests start one step later.
  h.clock.advance(STEP_MS)
  return { ...user, secret, code, recoveryCodes }
}
