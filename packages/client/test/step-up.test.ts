/**
 * Step-up through the client, against the reference server with a 2-second `AUTH_FRESH_AGE`: the
 * typed error, `reauth()`, and the opt-in hook that asks once, retries the original call once,
 * asks again after a wrong password, and gives up on `null`.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type RunningServer, startServerWithMail } from '../../../apps/todo-api/test/support.js'
import { AuthClientError, createAuthClient, type ReauthenticationPrompt, ReauthenticationRequiredError } from '../src/index.js'

const FRESH_AGE = 2
let server: RunningServer
let smtp: Awaited<ReturnType<typeof startServerWithMail>>['smtp']
beforeAll(async () => {
  ;({ server, smtp } = await startServerWithMail({ env: { AUTH_FRESH_AGE: String(FRESH_AGE) } }))
})
afterAll(async () => {
  await server?.stop()
  await smtp?.close()
})

const stale = () => new Promise((resolve) => setTimeout(resolve, (FRESH_AGE + 1) * 1000))
const member = () => ({ name: 'Stu', email: `stu-${randomUUID().slice(0, 8)}@example.com`, password: `plum ${randomUUID()}` })

it('a stale session gets the typed error with its maxAge; reauth() freshens the session without a new cookie', async () => {
  const auth = createAuthClient({ baseUrl: server.base })
  const input = member()
  await auth.signUp(input)
  // Fresh from the sign-up: no password needed.
  expect(await auth.changeEmail({ newEmail: `a-${input.email}` })).toMatchObject({ message: expect.any(String) })
  await stale()
  const refused = await auth.changeEmail({ newEmail: `b-${input.email}` }).catch((e: unknown) => e)
  expect(refused).toBeInstanceOf(ReauthenticationRequiredError)
  expect(refused).toBeInstanceOf(AuthClientError)
  expect(refused).toMatchObject({ status: 401, code: 'reauthentication-required', maxAge: FRESH_AGE })

  const wrong = await auth.reauth({ password: 'not my password' }).catch((e: unknown) => e)
  expect(wrong).toMatchObject({ status: 400, errors: [expect.objectContaining({ path: 'password' })] })
  expect(await auth.reauth({ password: input.password })).toMatchObject({ email: input.email })
  expect(await auth.changeEmail({ newEmail: `b-${input.email}` })).toMatchObject({ message: expect.any(String) })
  // Still the same session: the refresh cookie works as before.
  expect(await auth.refresh()).toBe(true)
  auth.close()
})

it('the hook asks for the password, again after a wrong one, and the original call is retried once', async () => {
  const prompts: ReauthenticationPrompt[] = []
  const input = member()
  const answers = ['a wrong password', input.password]
  const auth = createAuthClient({
    baseUrl: server.base,
    onReauthenticationRequired: async (prompt) => {
      prompts.push(prompt)
      const password = answers.shift()
      return password === undefined ? null : { password }
    },
  })
  await auth.signUp(input)
  // Two-factor setup needs a verified address.
  const mail = await smtp.waitFor(input.email, 0, 5_000, 'verify-email')
  await auth.verifyEmail({ token: decodeURIComponent(/token=(\S+)/.exec(mail.text)?.[1] ?? '') })
  await stale()
  // Two calls refused at once share one ask.
  const [email, codes] = await Promise.allSettled([auth.changeEmail({ newEmail: `c-${input.email}` }), auth.twoFactor.setup()])
  expect(email).toMatchObject({ status: 'fulfilled' })
  expect(codes).toMatchObject({ status: 'fulfilled', value: { uri: expect.stringMatching(/^otpauth:/) } })
  expect(prompts).toHaveLength(2)
  expect(prompts[0]).toMatchObject({ error: { maxAge: FRESH_AGE }, failure: null })
  expect(prompts[1]?.failure).toMatchObject({ status: 400 })
  expect(auth.getState().user?.email).toBe(input.email)

  // Giving up: the typed error reaches the caller, and the user stays signed in.
  await stale()
  const refused = await auth.changeEmail({ newEmail: `d-${input.email}` }).catch((e: unknown) => e)
  expect(refused).toBeInstanceOf(ReauthenticationRequiredError)
  expect(prompts).toHaveLength(3)
  expect(auth.getState().user?.email).toBe(input.email)
  expect((await auth.fetch('/todos')).status).toBe(200)
  auth.close()
})
