/**
 * The account screen: email verification, password and email changes, the sessions list, the
 * two-factor setup (QR code drawn here) and deleting the account. The email, two-factor and
 * delete actions ask for no password up front: within a few minutes of signing in the session
 * is enough, and later the server asks for a fresh sign-in, which the dialog of reauth.ts
 * collects in place.
 */
import type { SessionView } from '@latchkey/client'
import { deleteSection } from './account-delete.js'
import { twoFactorSection } from './account-two-factor.js'
import { apiKeysSection } from './api-keys.js'
import { deviceName } from './device.js'
import { announce, describeError, form, h } from './dom.js'
import { passkeysSection } from './passkeys.js'
import { type AccountContext, section } from './section.js'
import { identitiesSection } from './social.js'

const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' })

/** Told when the sessions may have changed (a password change signs the others out). */
const SESSIONS_CHANGED = 'latchkey:sessions-changed'

const emailSection = ({ auth, user }: AccountContext) => {
  const status = h('p', { role: 'status' })
  const content: (Node | string)[] = [
    h('p', {}, 'Signed in as ', h('strong', {}, user.email), user.emailVerified ? ' (verified).' : ' (not verified yet).'),
  ]
  if (!user.emailVerified) {
    const resend = h('button', { type: 'button', class: 'secondary' }, 'Send the verification link again')
    resend.addEventListener('click', async () => {
      resend.disabled = true
      try {
        status.textContent = (await auth.resendVerification()).message
      } catch (err) {
        status.textContent = describeError(err)
      } finally {
        resend.disabled = false
      }
    })
    content.push(resend)
  }
  content.push(
    status,
    h('h3', {}, 'Change your email'),
    form({
      label: 'Change your email',
      submit: 'Send a confirmation link',
      fields: [{ name: 'newEmail', label: 'New email', type: 'email', autocomplete: 'email' }],
      async onSubmit({ newEmail = '' }, element) {
        const { message } = await auth.changeEmail({ newEmail })
        element.reset()
        announce(message)
        status.textContent = message
      },
    }),
  )
  return section('Email', ...content)
}

const passwordSection = ({ auth, user }: AccountContext) =>
  section(
    'Password',
    form({
      label: 'Change your password',
      username: user.email,
      submit: 'Change password',
      fields: [
        { name: 'currentPassword', label: 'Current password', type: 'password', autocomplete: 'current-password' },
        { name: 'newPassword', label: 'New password', type: 'password', autocomplete: 'new-password', minlength: 8 },
      ],
      async onSubmit({ currentPassword = '', newPassword = '' }, element) {
        await auth.changePassword({ currentPassword, newPassword })
        element.reset()
        announce('Password changed. Your other sessions are signed out.')
        document.dispatchEvent(new Event(SESSIONS_CHANGED))
      },
    }),
  )

const sessionsSection = ({ auth }: AccountContext) => {
  const list = h('ul', { class: 'sessions', 'aria-label': 'Sessions' })
  const status = h('p', { class: 'error', role: 'alert' })
  const row = (session: SessionView) => {
    const device = deviceName(session.userAgent)
    const signedIn = when(session.createdAt)
    const details = [`Signed in ${signedIn}`, `last active ${when(session.lastUsedAt)}`, session.ip ? `IP ${session.ip}` : null]
    const item = h(
      'li',
      {},
      h(
        'div',
        { class: 'session' },
        h('span', { class: 'device' }, device, session.current ? h('span', { class: 'badge' }, 'This device') : null),
        h('small', {}, details.filter(Boolean).join(' · ')),
      ),
    )
    if (!session.current) {
      const end = h(
        'button',
        { type: 'button', class: 'secondary', 'aria-label': `Sign out ${device}, signed in ${signedIn}` },
        'Sign out',
      )
      end.addEventListener('click', async () => {
        end.disabled = true
        try {
          await auth.sessions.revoke(session.id)
          announce(`${device} is signed out.`)
          await load()
        } catch (err) {
          end.disabled = false
          status.textContent = describeError(err)
        }
      })
      item.append(end)
    }
    return item
  }
  const others = h('button', { type: 'button', class: 'secondary' }, 'Sign out everywhere else')
  const alone = h('p', { class: 'empty' }, 'No other device is signed in.')
  const load = async () => {
    try {
      const sessions = await auth.sessions.list()
      list.replaceChildren(...sessions.map(row))
      const single = sessions.every((session) => session.current)
      others.hidden = single
      alone.hidden = !single
    } catch (err) {
      status.textContent = describeError(err)
    }
  }
  others.addEventListener('click', async () => {
    try {
      await auth.sessions.revokeOthers()
      announce('Every other session is signed out.')
      await load()
    } catch (err) {
      status.textContent = describeError(err)
    }
  })
  alone.hidden = true
  const changed = () => {
    if (list.isConnected) void load()
    else document.removeEventListener(SESSIONS_CHANGED, changed)
  }
  document.addEventListener(SESSIONS_CHANGED, changed)
  void load()
  return section('Sessions', list, alone, others, status)
}

export const accountScreen = async (context: AccountContext) => {
  // The freshest view of the user (e.g. the email was verified in another tab).
  const user = await context.auth.me().catch(() => context.user)
  const fresh = { ...context, user }
  context.show(
    'Account',
    emailSection(fresh),
    passwordSection(fresh),
    sessionsSection(fresh),
    twoFactorSection(fresh),
    passkeysSection(fresh.auth, section),
    apiKeysSection(fresh.auth, section),
    identitiesSection(fresh.auth, section),
    deleteSection(fresh),
  )
}
