/**
 * The signed-out screens: sign in (password, passkey, a mail's link or code, a provider, then the
 * two-factor step when the account has one), sign up, and forgot password.
 */
import type { AuthClient, SignInResult, TwoFactorChallenge } from '@latchkey/client'
import { form, h } from './dom.js'
import { passkeySecondStep, passkeySignIn } from './passkeys.js'
import { providerButtons } from './social.js'

/** What a screen gets from the router. */
export interface ScreenContext {
  auth: AuthClient
  /** Shows a screen: its title as the heading (which gets focus), then its content. */
  show: (title: string, ...content: Node[]) => void
  go: (route: 'todos') => void
  /** What the next screen says (in a banner under its heading). */
  noticeNext: (message: string) => void
}

/** `secondFactor`: a provider signed the browser in as far as the second factor (its `?second_factor=`). */
export const signInScreen = ({ auth, show, go }: ScreenContext, secondFactor: string | null = null) => {
  const emailLink = h('button', { type: 'button', class: 'link' }, 'Email me a sign-in link')
  emailLink.addEventListener('click', () => emailStep())
  const passwordStep = form({
    label: 'Sign in',
    submit: 'Sign in',
    fields: [
      // `webauthn`: the browser also offers the site's passkeys here (autofill, see passkeys.ts).
      { name: 'email', label: 'Email', type: 'email', autocomplete: 'username webauthn' },
      { name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password' },
    ],
    async onSubmit({ email = '', password = '' }) {
      signedIn(await auth.signIn({ email, password }))
    },
    footer: [
      h('p', {}, h('a', { href: '#/forgot' }, 'Forgot your password?'), ' · ', h('a', { href: '#/signup' }, 'Create an account')),
      emailLink,
    ],
  })
  /** Sign-in by email: a link and a 6-digit code in one mail; the code is typed here, in this flow. */
  const emailStep = () =>
    show(
      'Sign in by email',
      form({
        label: 'Email me a sign-in link',
        submit: 'Email me a sign-in link',
        fields: [{ name: 'email', label: 'Email', type: 'email', autocomplete: 'username' }],
        async onSubmit({ email = '' }) {
          const { message, flow } = await auth.emailSignIn.start(email)
          mailCodeStep(message, flow)
        },
        footer: [h('p', {}, h('a', { href: '#/signin' }, 'Sign in with a password'))],
      }),
    )
  const mailCodeStep = (message: string, flow: string) =>
    show(
      'Enter the code from the mail',
      h('p', { role: 'status' }, message),
      h('p', {}, 'Open the link in the mail, or type its 6-digit code here.'),
      form({
        label: 'Sign-in code',
        submit: 'Sign in',
        fields: [
          {
            name: 'code',
            label: 'Code from the mail',
            autocomplete: 'one-time-code',
            inputmode: 'numeric',
            maxlength: 6,
            hint: '6 digits',
          },
        ],
        async onSubmit({ code = '' }) {
          signedIn(await auth.emailSignIn.verify({ flow, code: code.trim() }))
        },
        footer: [h('p', {}, h('a', { href: '#/signin' }, 'Start again'))],
      }),
    )
  /** What a sign-in step answered: the todos, or the two-factor step. */
  const signedIn = (result: SignInResult) => {
    if (result.status === 'signed-in') go('todos')
    else codeStep(result.challenge)
  }
  const codeStep = (twoFactor: TwoFactorChallenge) => {
    const { challenge } = twoFactor
    show(
      'Two-factor code',
      h('p', {}, 'Enter the 6-digit code from your authenticator app, or one of your recovery codes.'),
      passkeySecondStep(auth, twoFactor, () => go('todos')) ?? document.createTextNode(''),
      form({
        label: 'Two-factor code',
        submit: 'Verify',
        fields: [
          {
            name: 'code',
            label: 'Code',
            autocomplete: 'one-time-code',
            inputmode: 'text',
            maxlength: 20,
            hint: '6 digits, or a recovery code such as abcd-efgh-jkmn',
          },
        ],
        async onSubmit({ code = '' }) {
          await auth.verifyTwoFactor({ challenge, code: code.trim() })
          go('todos')
        },
        footer: [h('p', {}, h('a', { href: '#/signin' }, 'Start again'))],
      }),
    )
  }
  if (secondFactor)
    return codeStep({ twoFactorRequired: true, challenge: secondFactor, expiresIn: 300, methods: ['totp', 'recovery'] })
  show('Sign in', passwordStep, passkeySignIn(auth, signedIn), providerButtons(auth))
}

export const signUpScreen = ({ auth, show, go, noticeNext }: ScreenContext) =>
  show(
    'Create an account',
    form({
      label: 'Create an account',
      submit: 'Sign up',
      fields: [
        { name: 'name', label: 'Name', autocomplete: 'name', maxlength: 100 },
        { name: 'email', label: 'Email', type: 'email', autocomplete: 'email' },
        {
          name: 'password',
          label: 'Password',
          type: 'password',
          autocomplete: 'new-password',
          minlength: 8,
          hint: 'At least 8 characters; a passphrase of a few words is best.',
        },
      ],
      async onSubmit({ name = '', email = '', password = '' }) {
        await auth.signUp({ name, email, password })
        noticeNext(`Welcome, ${name}. We sent a link to ${email} to confirm the address.`)
        go('todos')
      },
      footer: [h('p', {}, 'Have an account? ', h('a', { href: '#/signin' }, 'Sign in'))],
    }),
  )

export const forgotScreen = ({ auth, show }: ScreenContext) => {
  const done = h('p', { role: 'status' })
  show(
    'Forgot your password?',
    form({
      label: 'Reset your password',
      submit: 'Send the reset link',
      fields: [{ name: 'email', label: 'Email', type: 'email', autocomplete: 'email' }],
      async onSubmit({ email = '' }) {
        const { message } = await auth.forgotPassword({ email })
        done.textContent = message
      },
      footer: [done, h('p', {}, h('a', { href: '#/signin' }, 'Back to sign in'))],
    }),
  )
}
