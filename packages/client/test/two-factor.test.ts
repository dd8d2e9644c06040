/** Two-factor sign-in through the client, against the reference server; codes from `otpauth`. */
import { randomUUID } from 'node:crypto'
import * as OTPAuth from 'otpauth'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { devMail, type RunningServer, startServer, verifyByDevMail } from '../../../apps/todo-api/test/support.js'
import { AuthClientError, createAuthClient } from '../src/index.js'

let server: RunningServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.stop()
})

it('sets up, signs in through the challenge, renews the recovery codes and turns it off', async () => {
  const auth = createAuthClient({ baseUrl: server.base })
  const input = { name: 'Otto', email: `otto-${randomUUID().slice(0, 8)}@example.com`, password: `plum ${randomUUID()}` }
  await auth.signUp(input)
  await verifyByDevMail(server, input.email, input.password)
  expect(await auth.twoFactor.status()).toEqual({ enabled: false, pending: false, recoveryCodesLeft: 0 })
  const { secret, uri } = await auth.twoFactor.setup({ currentPassword: input.password })
  expect(uri).toMatch(/^otpauth:\/\/totp\//)
  expect(await auth.twoFactor.status()).toMatchObject({ enabled: false, pending: true })
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' })
  while (Date.now() % 30_000 > 27_000) await new Promise((resolve) => setTimeout(resolve, 200))
  const at = (steps: number) => totp.generate({ timestamp: Date.now() + steps * 30_000 })
  const emailCode = await devMail(server, 'add-credential code', input.email)
  const { recoveryCodes } = await auth.twoFactor.enable({ code: at(0), emailCode })
  expect(recoveryCodes).toHaveLength(10)
  await auth.signOut()

  const first = await auth.signIn({ email: input.email, password: input.password })
  if (first.status !== 'two-factor') throw new Error('expected a challenge')
  expect(first.challenge).toMatchObject({ twoFactorRequired: true, expiresIn: 300 })
  expect(auth.getState().user).toBeNull()
  const wrong = await auth.verifyTwoFactor({ challenge: first.challenge.challenge, code: '000000' }).catch((e: unknown) => e)
  expect(wrong).toBeInstanceOf(AuthClientError)
  expect(wrong).toMatchObject({ status: 401 })
  // A recovery code answers the challenge (the browser test answers it with a code from the app).
  const user = await auth.verifyTwoFactor({ challenge: first.challenge.challenge, code: recoveryCodes[0] as string })
  expect(user.email).toBe(input.email)
  expect((await auth.fetch('/todos')).status).toBe(200)
  expect(await auth.twoFactor.status()).toEqual({ enabled: true, pending: false, recoveryCodesLeft: 9 })

  // The code of the next step: the one that turned it on is spent for the rest of its window.
  const renewed = await auth.twoFactor.regenerateRecoveryCodes({ currentPassword: input.password, code: at(1) })
  expect(renewed.recoveryCodes).toHaveLength(10)
  expect(renewed.recoveryCodes).not.toContain(recoveryCodes[0])
  // A recovery code turns it off.
  await auth.twoFactor.disable({ currentPassword: input.password, code: renewed.recoveryCodes[0] as string })
  expect(await auth.twoFactor.status()).toMatchObject({ enabled: false })
  await auth.signOut()
  expect(await auth.signIn({ email: input.email, password: input.password })).toMatchObject({ status: 'signed-in' })
  auth.close()
})

it('answers the challenge with a code from the app, once: the same code on a new challenge is refused', async () => {
  const auth = createAuthClient({ baseUrl: server.base })
  const input = { name: 'Tess', email: `tess-${randomUUID().slice(0, 8)}@example.com`, password: `plum ${randomUUID()}` }
  await auth.signUp(input)
  await verifyByDevMail(server, input.email, input.password)
  const { secret } = await auth.twoFactor.setup({ currentPassword: input.password })
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' })
  // Away from a step's edge, so that the server's step is the one the codes were made for.
  while (Date.now() % 30_000 > 27_000) await new Promise((resolve) => setTimeout(resolve, 200))
  const at = (steps: number) => totp.generate({ timestamp: Date.now() + steps * 30_000 })
  // The previous step (within ±1) turns it on; the current one is still unused.
  await auth.twoFactor.enable({ code: at(-1), emailCode: await devMail(server, 'add-credential code', input.email) })
  await auth.signOut()

  const first = await auth.signIn({ email: input.email, password: input.password })
  if (first.status !== 'two-factor') throw new Error('expected a challenge')
  const code = at(0)
  const user = await auth.verifyTwoFactor({ challenge: first.challenge.challenge, code })
  expect(user.email).toBe(input.email)
  expect(auth.getState().user?.email).toBe(input.email)
  expect((await auth.fetch('/todos')).status).toBe(200)

  const second = await auth.signIn({ email: input.email, password: input.password })
  if (second.status !== 'two-factor') throw new Error('expected a challenge')
  const replay = await auth.verifyTwoFactor({ challenge: second.challenge.challenge, code }).catch((e: unknown) => e)
  expect(replay).toMatchObject({ status: 401 })
  auth.close()
})
