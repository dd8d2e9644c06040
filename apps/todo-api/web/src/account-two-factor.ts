/** The account screen's two-factor section: setting it up (QR code drawn here), new recovery codes, turning it off. */
import type { AuthClient } from '@latchkey/client'
import { announce, describeError, form, h } from './dom.js'
import { qrCode } from './qr.js'
import { type AccountContext, section } from './section.js'

const recoveryList = (codes: string[]) =>
  h(
    'div',
    { class: 'recovery' },
    h('p', {}, 'Your recovery codes. Keep them somewhere safe: each works once, and they are shown only now.'),
    h('ul', { 'aria-label': 'Recovery codes' }, ...codes.map((code) => h('li', {}, h('code', {}, code)))),
  )

export const twoFactorSection = (context: AccountContext) => {
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
