/**
 * One mail as SMTP carries it, written out directly for the common case: the headers
 * nodemailer's MIME tree writes for a plain-text mail, in its order, and the text in the transfer
 * encoding it chooses (7bit, or quoted-printable from `nodemailer/lib/qp` for a line over 76
 * characters), without building the tree and its streams for every mail. Every login from a new browser and every signup mails one, and the tree was about half of
 * the mailer's CPU per mail (docs/PERFORMANCE.md#the-notice-mail-written-out). Anything this does
 * not write byte for byte as nodemailer would (text or a subject beyond plain ASCII, an address
 * that needs quoting or folding) answers `null`, and the mail is composed by nodemailer as before;
 * `mail-message.test.ts` compares the two for every kind of mail (a soft line break may sit
 * elsewhere: nodemailer's streaming encoder breaks where its input chunks end).
 */
import { randomUUID } from 'node:crypto'
import nodemailer from 'nodemailer'
import { hasLongerLines, isPlainText } from 'nodemailer/lib/mime-funcs'
import { encode as qpEncode, wrap as qpWrap } from 'nodemailer/lib/qp'

export interface PlainMail {
  to: string
  subject: string
  text: string
  /** Extra headers, written first, in order, as nodemailer writes custom headers. */
  headers: Record<string, string>
}

/** An address that goes into `To:` as it is: a mailbox without anything to quote or encode. */
const PLAIN_ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9.-]+$/
/** nodemailer folds a header line past 76 characters; such a line is left to it. */
const LINE = 76

/** What every message of one sender shares, as nodemailer writes it: the `From:` line, the envelope's sender and the Message-ID's domain. */
export interface Sender {
  fromLine: string
  address: string
  domain: string
}

/** Reads {@link Sender} off one message nodemailer writes for `from` (once per mailer). */
export const senderOf = async (from: string): Promise<Sender> => {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' })
  const info = await transport.sendMail({ from, to: 'someone@example.com', text: '' })
  // One line, not folded (a folded header goes on in a line that starts with white space).
  const fromLine = /^From: (.*)\r\n(?![ \t])/m.exec(info.message.toString())?.[1] ?? ''
  const address = info.envelope.from || ''
  return { fromLine, address, domain: address.split('@').pop() || 'localhost' }
}

/** Writes the message of `mail` from `sender`, or answers `null` when nodemailer should compose it. */
export const plainMessage = (mail: PlainMail, { fromLine, domain }: Sender, now: Date): string | null => {
  const { to, subject, text, headers } = mail
  // A From line nodemailer folded is left to it too.
  if (fromLine === '' || `From: ${fromLine}`.length > LINE) return null
  if (!PLAIN_ADDRESS.test(to) || `To: ${to}`.length > LINE) return null
  if (!isPlainText(subject) || `Subject: ${subject}`.length > LINE) return null
  if (!isPlainText(text)) return null
  for (const [name, value] of Object.entries(headers)) if (!isPlainText(value) || `${name}: ${value}`.length > LINE) return null
  const crlf = text.replace(/\r?\n/g, '\r\n')
  const qp = hasLongerLines(text, LINE)
  const body = qp ? qpWrap(qpEncode(crlf), LINE) : crlf
  return [
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `From: ${fromLine}`,
    `To: ${to}`,
    `Subject: ${subject}`,
    `Message-ID: <${randomUUID()}@${domain}>`,
    `Content-Transfer-Encoding: ${qp ? 'quoted-printable' : '7bit'}`,
    `Date: ${now.toUTCString().replace(/GMT/, '+0000')}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    body,
  ].join('\r\n')
}
