/**
 * The mailer writes a plain-text mail out directly (src/mail-message.ts) instead of building
 * nodemailer's MIME tree: here, for one mail of every kind, the headers are the ones nodemailer
 * writes for the same mail (Message-ID and Date aside) and the body carries the same text in the
 * same transfer encoding; what cannot be written that way falls back
 * to nodemailer, and a mail sent over SMTP arrives as nodemailer's would.
 */
import type { AddressInfo } from 'node:net'
import type { AuthMail } from '@latchkey/auth'
import nodemailer from 'nodemailer'
import { SMTPServer } from 'smtp-server'
import { describe, expect, it } from 'vitest'
import { compose, createMailer } from '../src/mail.js'
import { plainMessage, senderOf } from '../src/mail-message.js'

const FROM = 'Latchkey Test <noreply@example.test>'
const PUBLIC_URL = 'https://todo.example.test'
const TOKEN = 'tR9lK2mZ-x_4QvB7nW1pYc8dE3fG6hJ0aS5uI2oL7kM'
const to = 'ada@example.com'

/** One mail of every kind: a kind missing here does not compile. */
const samples: { [K in AuthMail['kind']]: Extract<AuthMail, { kind: K }> } = {
  'reset-password': { kind: 'reset-password', to, token: TOKEN },
  'verify-email': { kind: 'verify-email', to, token: TOKEN },
  'change-email': { kind: 'change-email', to: 'new@example.com', token: TOKEN },
  'sign-in': { kind: 'sign-in', to, token: TOKEN, code: '123456', signUp: false },
  'password-changed': { kind: 'password-changed', to },
  'email-changed': { kind: 'email-changed', to, newEmail: 'new@example.com' },
  'new-sign-in': {
    kind: 'new-sign-in',
    to,
    at: '2026-11-29T07:00:00.000Z',
    ip: '203.0.113.7',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  },
  'add-credential': { kind: 'add-credential', to, code: '654321', credential: 'two-factor' },
  'account-deleted': { kind: 'account-deleted', to },
  'two-factor-enabled': { kind: 'two-factor-enabled', to },
  'two-factor-disabled': { kind: 'two-factor-disabled', to, byOperator: true },
  'recovery-code-used': { kind: 'recovery-code-used', to, usedFor: 'sign-in' },
  'passkey-added': { kind: 'passkey-added', to, name: 'Laptop' },
  'passkey-removed': { kind: 'passkey-removed', to, name: 'Laptop' },
  'api-key-created': { kind: 'api-key-created', to, name: 'CI', scopes: ['todos:read'], expiresAt: '2027-02-27T00:00:00.000Z' },
  'identity-linked': { kind: 'identity-linked', to, provider: 'GitHub' },
  'identity-unlinked': { kind: 'identity-unlinked', to, provider: 'GitHub' },
  'account-disabled': { kind: 'account-disabled', to, byOperator: true },
  'account-enabled': { kind: 'account-enabled', to, byOperator: true },
  'signed-out-everywhere': { kind: 'signed-out-everywhere', to, byOperator: true },
  'email-marked-verified': { kind: 'email-marked-verified', to, byOperator: true },
}

/** The message nodemailer writes for a mail, as SMTP carries it (CRLF). */
const byNodemailer = async (mail: {
  from: string
  to: string
  subject: string
  text: string
  headers: Record<string, string>
}) => {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' })
  return (await transport.sendMail(mail)).message.toString()
}

/**
 * A message with what differs between any two messages set aside (Message-ID, Date) and its
 * quoted-printable body decoded: where a soft line break goes is the encoder's choice (nodemailer's
 * streaming encoder breaks a long line where its input chunks end), the text it carries is not.
 */
const normalised = (message: string) => {
  const [head = '', body = ''] = message.split(/\r\n\r\n(.*)/s)
  const decoded = /^Content-Transfer-Encoding: quoted-printable\r?$/m.test(head)
    ? body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    : body
  const header = head.replace(/^Message-ID: <[^@>]+@/m, 'Message-ID: <id@').replace(/^Date: .*$/m, 'Date: (date)')
  return `${header}\r\n\r\n${decoded.replace(/\r?\n$/, '')}`
}

describe('a mail written out directly', () => {
  it.each(Object.values(samples))('$kind: the headers nodemailer writes, and the same text', async (mail) => {
    const sender = await senderOf(FROM)
    const { subject, text } = compose(mail, PUBLIC_URL)
    const headers = { 'X-Latchkey-Kind': mail.kind }
    const direct = plainMessage({ to: mail.to, subject, text, headers }, sender, new Date())
    expect(direct).not.toBeNull()
    expect(normalised(direct ?? '')).toBe(normalised(await byNodemailer({ from: FROM, to: mail.to, subject, text, headers })))
    expect(direct).toMatch(/^Message-ID: <[0-9a-f-]{36}@example\.test>\r$/m)
    expect(direct).toMatch(/^Date: \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0000\r$/m)
  })

  it('leaves to nodemailer what it would encode or fold: text or a subject beyond ASCII, an address to quote, a long line', async () => {
    const sender = await senderOf(FROM)
    const plain = { to, subject: 'Hello', text: 'Hi', headers: { 'X-Latchkey-Kind': 'notice' } }
    expect(plainMessage(plain, sender, new Date())).not.toBeNull()
    for (const odd of [
      { text: 'Grüße' },
      { subject: 'Grüße' },
      { to: 'zoë@example.com' },
      { to: '"a b"@example.com' },
      { to: `${'a'.repeat(80)}@example.com` },
      { subject: 's'.repeat(80) },
      { text: 'a\u0007bell' },
    ])
      expect(plainMessage({ ...plain, ...odd }, sender, new Date())).toBeNull()
    // A sender whose From line nodemailer encodes (still one short line) is written out; one it folds is not.
    expect((await senderOf('Zoë <zoe@example.test>')).fromLine).toBe('=?UTF-8?Q?Zo=C3=AB?= <zoe@example.test>')
    expect(plainMessage(plain, await senderOf(`${'Long Name '.repeat(8)}<noreply@example.test>`), new Date())).toBeNull()
  })

  it('over SMTP, arrives as nodemailer’s message of the same mail would', async () => {
    const received: string[] = []
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      closeTimeout: 200,
      onData(stream, _session, callback) {
        let raw = ''
        stream.setEncoding('utf8')
        stream.on('data', (chunk: string) => {
          raw += chunk
        })
        stream.on('end', () => {
          received.push(raw)
          callback()
        })
      },
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.server.address() as AddressInfo
    const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM, publicUrl: PUBLIC_URL, production: true })
    try {
      // A line that starts with a dot travels dot-stuffed and arrives as written.
      for (const mail of [samples['new-sign-in'], samples['reset-password'], { ...samples['passkey-added'], name: '.hidden' }])
        await mailer.send(mail)
      const expected = await Promise.all(
        [samples['new-sign-in'], samples['reset-password'], { ...samples['passkey-added'], name: '.hidden' }].map((mail) => {
          const { subject, text } = compose(mail, PUBLIC_URL)
          return byNodemailer({ from: FROM, to: mail.to, subject, text, headers: { 'X-Latchkey-Kind': mail.kind } })
        }),
      )
      expect(received.map(normalised)).toEqual(expected.map(normalised))
    } finally {
      mailer.close()
      server.close()
    }
  })
})
