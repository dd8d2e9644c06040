/** Sign-in by email through the client, against the reference server and an SMTP catcher on loopback. */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type RunningServer, signup, startServerWithMail, type startSmtp } from '../../../apps/todo-api/test/support.js'
import { AuthClientError, createAuthClient } from '../src/index.js'

let server: RunningServer
let smtp: Awaited<ReturnType<typeof startSmtp>>
beforeAll(async () => {
  ;({ server, smtp } = await startServerWithMail())
})
afterAll(async () => {
  await server?.stop()
  await smtp?.close()
})

const mailTo = async (to: string, after: number) => {
  const mail = await smtp.waitFor(to, after, 5_000, 'sign-in')
  const token = /sign-in\?token=([\w-]+)/.exec(mail.text)?.[1] ?? ''
  const code = /code in the browser where you asked: ([0-9]{6})/.exec(mail.text)?.[1] ?? ''
  return { token, code }
}

it('starts a sign-in, and verifies it with the code and the flow, or with the link token', async () => {
  const { email } = await signup(server.base)
  const auth = createAuthClient({ baseUrl: server.base })
  let before = smtp.mails.length
  const started = await auth.emailSignIn.start(email)
  expect(started.flow).toMatch(/^[\w-]{43}$/)
  const { code } = await mailTo(email, before)
  const wrong = await auth.emailSignIn
    .verify({ flow: started.flow, code: code === '000000' ? '000001' : '000000' })
    .catch((e: unknown) => e)
  expect(wrong).toBeInstanceOf(AuthClientError)
  expect(wrong).toMatchObject({ status: 401 })
  const result = await auth.emailSignIn.verify({ flow: started.flow, code })
  expect(result).toMatchObject({ status: 'signed-in', user: { email, emailVerified: true } })
  expect(auth.getState().user?.email).toBe(email)
  expect((await auth.fetch('/todos')).status).toBe(200)
  await auth.signOut()

  before = smtp.mails.length
  await auth.emailSignIn.start(email)
  const { token } = await mailTo(email, before)
  expect(await auth.emailSignIn.verify({ token })).toMatchObject({ status: 'signed-in' })
  expect((await auth.fetch('/todos')).status).toBe(200)
  auth.close()
})
