/**
 * The account screen: email verification, password and email changes, the sessions list, the
 * two-factor setup (QR code drawn here) and deleting the account. The email, two-factor and
 * delete actions ask for no password up front: within a few minutes of signing in the session
 * is enough, and later the server asks for a fresh sign-in, which the dialog of reauth.ts
 * collects in place.
 */
import type { AuthClient, SessionView, User } from '@latchkey/client'
import { deviceName } from './device.js'
import { announce, describeError, form, h } from './dom.js'
import { passkeysSection } from './passkeys.js'
import { qrCode } from './qr.js'

interface AccountContext {
  auth: AuthClient
  user: User
  show: (title: string, ...content: Node[]) => void
  /** What the next screen says (set before a step that signs out; the sign-in screen shows it). */
  noticeNext: (message: string) => void
}

const section = (title: string, ...content: (Node | string)[]) => {
  const id = `section-${title.toLowerCase().replace(/\W+/g, '-')}`
  return h('section', { 'aria-labelledby': id, id: `${id}-region` }, h('h2', { id }, title), ...content)
}

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

const recoveryList = (codes: string[]) =>
  h(
    'div',
    { class: 'recovery' },
    h('p', {}, 'Your recovery codes. Keep them somewhere safe: each works once, and they are shown only now.'),
    h('ul', { 'aria-label': 'Recovery codes' }, ...codes.map((code) => h('li', {}, h('code', {}, code)))),
  )

const twoFactorSection = (context: AccountContext) => {
  const { auth } = context
  const body = h('div', {})
  const render = async () => {
    let status: Awaited<ReturnType<AuthClient['twoFactor']['status']>>
    try {
      status = await auth.twoFactor.status()
    } catch (err) {
      body.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(err)))
      return
    }
    if (!status.enabled) {
      body.replaceChildren(
        h('p', {}, 'Two-factor sign-in is off. Turn it on to ask for a code from an authenticator app at every sign-in.'),
        h(
          'p',
          { class: 'hint' },
          context.user.emailVerified
            ? 'Setting it up emails you a code that turning it on needs.'
            : 'Verify your email address first: two-factor sign-in needs a code sent to it.',
        ),
        form({
          label: 'Set up two-factor sign-in',
          submit: 'Set up',
          fields: [],
          async onSubmit() {
            const { secret, uri } = await auth.twoFactor.setup()
            confirm(secret, uri)
          },
        }),
      )
      return
    }
    body.replaceChildren(
      h('p', {}, `Two-factor sign-in is on. ${status.recoveryCodesLeft} recovery codes left.`),
      h('h3', {}, 'New recovery codes'),
      form({
        label: 'New recovery codes',
        submit: 'Make new recovery codes',
        fields: [
          { name: 'code', label: 'Code from your app', autocomplete: 'one-time-code', inputmode: 'numeric', maxlength: 6 },
        ],
        async onSubmit({ code = '' }) {
          const { recoveryCodes } = await auth.twoFactor.regenerateRecoveryCodes({ code: code.trim() })
          body.replaceChildren(recoveryList(recoveryCodes), doneButton())
          announce('New recovery codes made; the old ones no longer work.')
        },
      }),
      h('h3', {}, 'Turn two-factor sign-in off'),
      form({
        label: 'Turn two-factor sign-in off',
        submit: 'Turn off',
        fields: [{ name: 'code', label: 'Code or recovery code', autocomplete: 'one-time-code', maxlength: 20 }],
        async onSubmit({ code = '' }) {
          await auth.twoFactor.disable({ code: code.trim() })
          announce('Two-factor sign-in is off.')
          await render()
        },
      }),
    )
  }
  const doneButton = () => {
    const done = h('button', { type: 'button' }, 'I saved them')
    done.addEventListener('click', () => void render())
    return done
  }
  const confirm = (secret: string, uri: string) => {
    body.replaceChildren(
      h('p', {}, 'Scan this code with your authenticator app, or type the key in, then enter the code it shows.'),
      qrCode(uri, 'QR code of the two-factor key'),
      h('p', {}, 'Key: ', h('code', { class: 'secret', 'data-secret': secret }, secret.replace(/(.{4})/g, '$1 ').trim())),
      form({
        label: 'Confirm two-factor sign-in',
        submit: 'Turn on',
        fields: [
          {
            name: 'code',
            label: 'Code from your app',
            autocomplete: 'one-time-code',
            inputmode: 'numeric',
            maxlength: 6,
            pattern: '[0-9]{6}',
          },
          {
            name: 'emailCode',
            label: 'Code from the email we just sent you',
            autocomplete: 'one-time-code',
            inputmode: 'numeric',
            maxlength: 6,
            pattern: '[0-9]{6}',
            hint: 'It works for 10 minutes. Setting up again sends a new one.',
          },
        ],
        async onSubmit({ code = '', emailCode = '' }) {
          const { recoveryCodes } = await auth.twoFactor.enable({ code: code.trim(), emailCode: emailCode.trim() })
          body.replaceChildren(
            h('p', { role: 'status' }, 'Two-factor sign-in is on. Your other sessions are signed out.'),
            recoveryList(recoveryCodes),
            doneButton(),
          )
        },
      }),
    )
  }
  void render()
  return section('Two-factor sign-in', body)
}

const deleteSection = ({ auth, noticeNext }: AccountContext) =>
  section(
    'Delete the account',
    h('p', {}, 'This deletes your account and every todo in it. It cannot be undone.'),
    form({
      label: 'Delete the account',
      submit: 'Delete my account',
      className: 'danger',
      fields: [
        {
          name: 'code',
          label: 'Code or recovery code',
          autocomplete: 'one-time-code',
          maxlength: 20,
          required: false,
          hint: 'Needed when two-factor sign-in is on.',
        },
      ],
      async onSubmit({ code = '' }) {
        noticeNext('Your account is deleted.')
        try {
          await auth.deleteAccount(code.trim() ? { code: code.trim() } : {})
        } catch (err) {
          noticeNext('')
          throw err
        }
      },
    }),
  )

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
    deleteSection(fresh),
  )
}
