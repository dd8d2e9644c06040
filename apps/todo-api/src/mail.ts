/**
 * The mail hook the app hands to @latchkey/auth (docs/reference/lifecycle.md#mail). It owns the links
 * (`$PUBLIC_URL/reset-password?token=…`, `/verify-email?token=…`, `/confirm-email?token=…`,
 * `/sign-in?token=…`, never
 * built from request headers) and the delivery: SMTP when `SMTP_URL` is set, each mail with an
 * `X-Latchkey-Kind` header; otherwise one terminal line per mail, outside production only.
 */
import type { AddedCredential, AuthMail, RecoveryCodeUse } from '@latchkey/auth'
import Bowser from 'bowser'
import nodemailer from 'nodemailer'
import { plainMessage, senderOf } from './mail-message.js'

export interface MailerOptions {
  /** `smtp://user:pass@host:port` or `smtps://…`; `null` prints the link instead. */
  smtpUrl: string | null
  from: string
  /** Base of the link, without a trailing slash. */
  publicUrl: string
  production: boolean
  /** Where the development mail lines go. Default: standard output. */
  print?: (line: string) => void
}

export interface Mailer {
  send(mail: AuthMail): Promise<void>
  close(): void
}

/** The page each token kind links to. */
const PAGE = {
  'reset-password': 'reset-password',
  'verify-email': 'verify-email',
  'change-email': 'confirm-email',
  'sign-in': 'sign-in',
} as const

/** The link a token mail carries. */
export const tokenLink = (publicUrl: string, kind: keyof typeof PAGE, token: string): string =>
  `${publicUrl}/${PAGE[kind]}?token=${encodeURIComponent(token)}`

/** The link a reset mail carries. */
export const resetLink = (publicUrl: string, token: string): string => tokenLink(publicUrl, 'reset-password', token)

interface Composed {
  subject: string
  text: string
  /** The one line printed in development. */
  line: string
}

const IGNORE = 'If you did not ask for this, ignore this mail.'
/** How a mail names an operator's action (docs/guide/operators.md#what-the-user-is-told). */
const BY_OPERATOR = 'An operator of this service'

/** The mails that carry a token: subject, the words of the development line, and the text around the link. */
const TOKEN_MAILS: Record<
  Exclude<keyof typeof PAGE, 'sign-in'>,
  { subject: string; label: string; text: (link: string) => string[] }
> = {
  'reset-password': {
    subject: 'Reset your password',
    label: 'password reset',
    text: (link) => [
      'Someone (hopefully you) asked to reset the password of your account.',
      '',
      `Set a new password here: ${link}`,
      '',
      'The link works once and expires in 30 minutes. Using it signs out every session of the account.',
      'If you did not ask for this, ignore this mail: your password stays as it is.',
    ],
  },
  'verify-email': {
    subject: 'Confirm your email address',
    label: 'email verification',
    text: (link) => ['Confirm that this address is yours:', '', link, '', 'The link works once and expires in 24 hours.', IGNORE],
  },
  'change-email': {
    subject: 'Confirm your new email address',
    label: 'email change',
    text: (link) => [
      'Someone (hopefully you) asked to make this the email address of their account.',
      '',
      `Confirm it here: ${link}`,
      '',
      'The link works once and expires in 1 hour. Using it signs out every session of the account.',
      IGNORE,
    ],
  },
}

/** Subject, text and development line of each kind; the `switch` is checked for exhaustiveness. */
export const compose = (mail: AuthMail, publicUrl: string): Composed => {
  switch (mail.kind) {
    case 'reset-password':
    case 'verify-email':
    case 'change-email': {
      const { subject, label, text } = TOKEN_MAILS[mail.kind]
      const link = tokenLink(publicUrl, mail.kind, mail.token)
      const lines = text(link)
      // An operator asked for it: say so, instead of "someone (hopefully you)".
      if (mail.kind === 'reset-password' && mail.byOperator) lines[0] = `${BY_OPERATOR} sent you a link to set a new password.`
      return { subject, text: lines.join('\n'), line: `${label} link for ${mail.to}: ${link}` }
    }
    case 'sign-in': {
      const link = tokenLink(publicUrl, 'sign-in', mail.token)
      const what = mail.signUp ? 'create your account and sign in' : 'sign in'
      return {
        subject: mail.signUp ? `Your sign-up code: ${mail.code}` : `Your sign-in code: ${mail.code}`,
        text: [
          `Someone (hopefully you) asked to ${what} with this address.`,
          '',
          `Open this link to ${what}: ${link}`,
          '',
          `Or enter this code in the browser where you asked: ${mail.code}`,
          '',
          'The link and the code work once, together, and expire in 15 minutes.',
          IGNORE,
        ].join('\n'),
        line: `${mail.signUp ? 'sign-up' : 'sign-in'} link for ${mail.to}: ${link} (code ${mail.code})`,
      }
    }
    case 'password-changed':
      return notice(mail.to, 'Your password was changed', 'The password of your account was just changed.')
    case 'email-changed':
      return notice(mail.to, 'Your email address was changed', `The email address of your account is now ${mail.newEmail}.`)
    case 'two-factor-enabled':
      return notice(mail.to, 'Two-factor sign-in is on', 'Two-factor sign-in was just turned on for your account.')
    case 'two-factor-disabled':
      return notice(
        mail.to,
        'Two-factor sign-in is off',
        mail.byOperator
          ? `${BY_OPERATOR} turned two-factor sign-in off for your account and removed its recovery codes. Turn it on again once you can sign in.`
          : 'Two-factor sign-in was just turned off for your account.',
      )
    case 'account-disabled':
      return notice(
        mail.to,
        'Your account was disabled',
        `${BY_OPERATOR} disabled your account: every session was signed out, and signing in is refused until it is enabled again. Reply to this mail if you think this is a mistake.`,
      )
    case 'account-enabled':
      return notice(mail.to, 'Your account was enabled', `${BY_OPERATOR} enabled your account again: you can sign in.`)
    case 'signed-out-everywhere':
      return notice(
        mail.to,
        'You were signed out everywhere',
        `${BY_OPERATOR} signed your account out of every browser and device. Sign in again to continue.`,
      )
    case 'email-marked-verified':
      return notice(mail.to, 'Your email address was verified', `${BY_OPERATOR} marked this email address as verified.`)
    case 'recovery-code-used':
      return notice(
        mail.to,
        'A recovery code was used',
        `One of your recovery codes was just used ${RECOVERY_USE[mail.usedFor]}.`,
      )
    case 'add-credential':
      return addCredential(mail.to, mail.code, CREDENTIAL[mail.credential])
    case 'account-deleted':
      return {
        subject: 'Your account was deleted',
        text: [
          'Your account and everything in it were just deleted.',
          '',
          'If this was not you, someone had your password (and your second factor, if you had one on).',
          'The address is free again: you can sign up with it anew.',
        ].join('\n'),
        line: `notice for ${mail.to}: Your account was deleted`,
      }
    case 'new-sign-in':
      return newSignIn(mail, publicUrl)
    case 'passkey-added':
      return notice(mail.to, 'A passkey was added', `A passkey named "${mail.name}" was just added to your account.`)
    case 'passkey-removed':
      return notice(mail.to, 'A passkey was removed', `The passkey named "${mail.name}" was just removed from your account.`)
    case 'api-key-created':
      return notice(
        mail.to,
        'An API key was created',
        `An API key named "${mail.name}" (${mail.scopes.join(', ')}) was just created for your account; it works until ${mail.expiresAt}. If you did not create it, revoke it on your account page and change your password.`,
      )
    case 'identity-linked':
      return notice(mail.to, `${mail.provider} was linked`, `You can now sign in to your account with ${mail.provider}.`)
    case 'identity-unlinked':
      return notice(mail.to, `${mail.provider} was unlinked`, `${mail.provider} no longer signs in to your account.`)
  }
}

/** The browsers and systems bowser knows by name: a name it read out of any other text is that text's. */
const BROWSERS = new Set(Object.values(Bowser.BROWSER_MAP))
const SYSTEMS = new Set(Object.values(Bowser.OS_MAP))
export const UNRECOGNISED = 'an unrecognised browser'

/**
 * `Chrome 131 on Linux` from a `User-Agent` (bowser): a browser and a system only by the names on
 * bowser's lists, the major version only as digits; anything else is "an unrecognised browser".
 * Never the text itself: a stranger writes it, and the notice goes to the owner
 * (docs/guide/account-protection.md#new-device-notices).
 */
export const deviceName = (userAgent: string | null): string => {
  if (!userAgent) return UNRECOGNISED
  const { browser, os } = Bowser.parse(userAgent)
  if (!browser.name || !BROWSERS.has(browser.name)) return UNRECOGNISED
  const version = /^\d{1,4}(?=\.|$)/.exec(browser.version ?? '')?.[0]
  const system = os.name && SYSTEMS.has(os.name) ? ` on ${os.name}` : ''
  return `${browser.name}${version ? ` ${version}` : ''}${system}`
}

/** The sessions screen of the front end, where a sign-in that was not the owner's can be ended. */
export const sessionsLink = (publicUrl: string): string => `${publicUrl}/#/account`

const newSignIn = (mail: Extract<AuthMail, { kind: 'new-sign-in' }>, publicUrl: string): Composed => ({
  subject: 'New sign-in to your account',
  text: [
    'Your account was just signed in to from a browser it had not used before.',
    '',
    `When: ${mail.at}`,
    `Where: ${mail.ip ?? 'an unknown address'}`,
    `Browser: ${deviceName(mail.userAgent)}`,
    '',
    `If this was you, there is nothing to do. If not, end that session and change your password: ${sessionsLink(publicUrl)}`,
  ].join('\n'),
  line: `notice for ${mail.to}: new sign-in from ${mail.ip ?? 'an unknown address'}`,
})

/** What a recovery code was used for, as the notice's sentence ends. */
const RECOVERY_USE: Record<RecoveryCodeUse, string> = {
  'sign-in': 'to sign in',
  reauth: 'to confirm it was you before an account change',
  'disable-two-factor': 'to turn two-factor sign-in off',
  'delete-account': 'to delete your account',
}

/** What the credential an add-credential code is for is called in the mail. */
const CREDENTIAL: Record<AddedCredential, string> = {
  'two-factor': 'two-factor sign-in (an authenticator app)',
  passkey: 'a passkey',
}

/** The mailed code that proves the mailbox before a credential is added. The development line shows the code. */
const addCredential = (to: string, code: string, what: string): Composed => ({
  subject: 'Your code to add a sign-in method',
  text: [
    `Someone signed in to your account is adding ${what}. To go on, they need this code:`,
    '',
    `    ${code}`,
    '',
    'It works once and expires in 10 minutes.',
    'If this was not you, someone has your password: do not share the code, reset your password now.',
  ].join('\n'),
  line: `add-credential code for ${to}: ${code}`,
})

const notice = (to: string, subject: string, what: string): Composed => ({
  subject,
  text: [what, '', 'If this was not you, reset your password now and sign out your other sessions.'].join('\n'),
  line: `notice for ${to}: ${subject}`,
})

export const createMailer = ({ smtpUrl, from, publicUrl, production, print }: MailerOptions): Mailer => {
  if (smtpUrl) {
    // Pooled: up to five connections, each kept for up to 100 mails, so a mail costs its MAIL,
    // RCPT and DATA rather than a new connection, greeting and EHLO (and TLS and AUTH where the
    // server asks for them). Every login from a new browser mails a notice, and a fresh connection
    // per mail was the largest part of a login's own CPU (docs/PERFORMANCE.md#the-login-measured).
    // No mail here has attachments or embedded links to load: with file and URL access off,
    // nodemailer skips looking for them in every mail (~20 % of its CPU per mail, and nothing a
    // mail's content could make it read).
    const transport = nodemailer.createTransport({ url: smtpUrl, pool: true, disableFileAccess: true, disableUrlAccess: true })
    // The message is written out directly where it can be, byte for byte as nodemailer would (mail-message.ts).
    const sender = senderOf(from).catch(() => null)
    return {
      async send(mail) {
        const { subject, text } = compose(mail, publicUrl)
        const headers = { 'X-Latchkey-Kind': mail.kind }
        const known = await sender
        const raw = known && plainMessage({ to: mail.to, subject, text, headers }, known, new Date())
        await transport.sendMail(
          raw ? { envelope: { from: known.address, to: [mail.to] }, raw } : { from, to: mail.to, subject, text, headers },
        )
      },
      close: () => transport.close(),
    }
  }
  if (production) throw new Error('createMailer: SMTP_URL is required in production; mail links are never printed there')
  const write = print ?? ((line: string) => console.log(line))
  return {
    async send(mail) {
      write(`[dev mail] ${compose(mail, publicUrl).line}`)
    },
    close: () => {},
  }
}
