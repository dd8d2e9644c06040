/**
 * The reset-mail hook the app hands to @latchkey/auth. It owns the link
 * (`$PUBLIC_URL/reset-password?token=…`, never built from request headers) and the delivery:
 * SMTP when `SMTP_URL` is set, otherwise one terminal line with the link, outside production only.
 */
import type { ResetMail } from '@latchkey/auth'
import nodemailer from 'nodemailer'

export interface MailerOptions {
  /** `smtp://user:pass@host:port` or `smtps://…`; `null` prints the link instead. */
  smtpUrl: string | null
  from: string
  /** Base of the link, without a trailing slash. */
  publicUrl: string
  production: boolean
  /** Where the development link line goes. Default: standard output. */
  print?: (line: string) => void
}

export interface Mailer {
  sendReset(mail: ResetMail): Promise<void>
  close(): void
}

/** The link a reset mail carries. */
export const resetLink = (publicUrl: string, token: string): string =>
  `${publicUrl}/reset-password?token=${encodeURIComponent(token)}`

const body = (link: string) =>
  [
    'Someone (hopefully you) asked to reset the password of your account.',
    '',
    `Set a new password here: ${link}`,
    '',
    'The link works once and expires in 30 minutes. Using it signs out every session of the account.',
    'If you did not ask for this, ignore this mail: your password stays as it is.',
  ].join('\n')

export const createMailer = ({ smtpUrl, from, publicUrl, production, print }: MailerOptions): Mailer => {
  if (smtpUrl) {
    const transport = nodemailer.createTransport(smtpUrl)
    return {
      async sendReset({ to, token }) {
        await transport.sendMail({ from, to, subject: 'Reset your password', text: body(resetLink(publicUrl, token)) })
      },
      close: () => transport.close(),
    }
  }
  if (production) throw new Error('createMailer: SMTP_URL is required in production; reset links are never printed there')
  const write = print ?? ((line: string) => console.log(line))
  return {
    async sendReset({ to, token }) {
      write(`[dev mail] password reset link for ${to}: ${resetLink(publicUrl, token)}`)
    },
    close: () => {},
  }
}
