/**
 * The app's sign-in mail (docs/reference/email-sign-in.md#the-link): over SMTP with
 * `X-Latchkey-Kind: sign-in`, the link to `$PUBLIC_URL/sign-in?token=…` and the code; in
 * development without SMTP, one printed line with the link (and the code, to type it).
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createMailer } from '../src/mail.js'
import { startSmtp } from './support.js'

const TOKEN = 'A'.repeat(43)
let smtp: Awaited<ReturnType<typeof startSmtp>>
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(async () => {
  await smtp?.close()
})

it('prints one line with the link and the code in development', async () => {
  const lines: string[] = []
  const mailer = createMailer({
    smtpUrl: null,
    from: 'x@localhost',
    publicUrl: 'http://localhost:3000',
    production: false,
    print: (l) => lines.push(l),
  })
  await mailer.send({ kind: 'sign-in', to: 'ada@example.com', token: TOKEN, code: '042917', signUp: false })
  await mailer.send({ kind: 'sign-in', to: 'new@example.com', token: TOKEN, code: '000001', signUp: true })
  expect(lines).toEqual([
    `[dev mail] sign-in link for ada@example.com: http://localhost:3000/sign-in?token=${TOKEN} (code 042917)`,
    `[dev mail] sign-up link for new@example.com: http://localhost:3000/sign-in?token=${TOKEN} (code 000001)`,
  ])
})

it('sends the link and the code over SMTP, with its kind in a header', async () => {
  const mailer = createMailer({
    smtpUrl: smtp.url,
    from: 'x@example.test',
    publicUrl: 'https://todo.example.test',
    production: true,
  })
  await mailer.send({ kind: 'sign-in', to: 'ada@example.com', token: TOKEN, code: '042917', signUp: false })
  const mail = await smtp.waitFor('ada@example.com', 0, 5_000, 'sign-in')
  expect(mail.text).toContain(`https://todo.example.test/sign-in?token=${TOKEN}`)
  expect(mail.text).toContain('code in the browser where you asked: 042917')
  expect(mail.text).toMatch(/^Subject: Your sign-in code: 042917/m)
  mailer.close()
})
