/**
 * Step-up in place: when an account action needs a recent sign-in (the server answers 401
 * `reauthentication-required`), a dialog asks for the password, and the code when two-factor
 * sign-in is on, over the screen the user is on. The client re-authenticates the session and
 * retries the action; nobody is signed out. Cancel (or Escape) gives up, and the action's form
 * shows why it did not happen.
 */
import {
  type AuthClient,
  AuthClientError,
  type ReauthenticationPrompt,
  ReauthenticationRequiredError,
  type ReauthProof,
} from '@latchkey/client'
import { describeError, dismissed, form, h, uid } from './dom.js'

const TITLE = 'Confirm it’s you'

const age = (seconds: number) =>
  seconds % 60 === 0 ? `${seconds / 60} minute${seconds === 60 ? '' : 's'}` : `${seconds} seconds`

/**
 * The dialog: resolves with the proof the user gave, or `null` when they cancel. With `codeHeld`
 * (the action carries its own code) it asks for no code, and a password comes back alone.
 */
const askProof = async (
  auth: AuthClient,
  { error, failure }: ReauthenticationPrompt,
  { codeHeld = false } = {},
): Promise<ReauthProof | null> => {
  const twoFactor = !codeHeld && ((await auth.twoFactor.status().catch(() => null))?.enabled ?? false)
  return new Promise((resolve) => {
    const titleId = uid('reauth-title')
    const dialog = h('dialog', { 'aria-labelledby': titleId, class: 'reauth' })
    let settled = false
    const finish = (proof: ReauthProof | null) => {
      if (settled) return
      settled = true
      dialog.close()
      dialog.remove()
      resolve(proof)
    }
    const cancel = h('button', { type: 'button', class: 'link' }, 'Cancel')
    // A passkey proves the user instead of the password; the code, when typed, goes with it (a
    // two-factor account needs it unless the passkey verifies the user).
    const passkey = h('button', { type: 'button', class: 'secondary' }, 'Use a passkey')
    passkey.hidden = !auth.passkeys.supported()
    passkey.addEventListener('click', async () => {
      passkey.disabled = true
      try {
        const code = (dialog.querySelector('input[name="code"]') as HTMLInputElement | null)?.value.trim()
        finish({ passkey: await auth.passkeys.proof(), ...(code ? { code } : {}) })
      } catch (err) {
        passkey.disabled = false
        // Closed, refused or no passkey here: the password is still there to use, nothing to report.
        const alert = dialog.querySelector('[role="alert"]')
        if (alert) alert.textContent = dismissed(err) ? '' : describeError(err)
      }
    })
    cancel.addEventListener('click', () => finish(null))
    // Escape closes a modal dialog: that is a cancel too.
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault()
      finish(null)
    })
    const fields = [
      { name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password' },
      ...(twoFactor
        ? [{ name: 'code', label: 'Code from your app', autocomplete: 'one-time-code', hint: 'Or one of your recovery codes' }]
        : []),
    ]
    dialog.append(
      h('h2', { id: titleId }, TITLE),
      h('p', {}, `This change needs a sign-in from the last ${age(error.maxAge)}. Enter your password to go on.`),
      h('p', { class: 'error', role: 'alert' }, failure ? describeError(failure) : ''),
      form({
        label: TITLE,
        submit: 'Confirm',
        fields,
        async onSubmit({ password = '', code = '' }) {
          finish(twoFactor ? { password, code: code.trim() } : { password })
        },
        footer: [h('div', { class: 'actions' }, passkey, cancel)],
      }),
    )
    document.body.append(dialog)
    dialog.showModal()
    dialog.querySelector('input')?.focus()
  })
}

/** Set while {@link withCodeHeld} runs: how the client's step-up is answered for that action. */
let held: ((prompt: ReauthenticationPrompt) => Promise<ReauthProof | null>) | null = null

/** The client's `onReauthenticationRequired`: the dialog's proof, or `null` when the user cancels. */
export const confirmIdentity = (auth: AuthClient, prompt: ReauthenticationPrompt): Promise<ReauthProof | null> =>
  held ? held(prompt) : askProof(auth, prompt)

/** A refusal of the password an action was sent with (400, `errors[]` on `currentPassword`). */
const wrongPassword = (err: unknown) =>
  err instanceof AuthClientError && err.status === 400 && err.errors.some((e) => e.path.endsWith('currentPassword'))

/**
 * Runs an action whose body already holds the second factor's code (deleting the account,
 * docs/reference/lifecycle.md#deleting-the-account) so that the person types one code: a
 * re-authentication would spend that code (a TOTP code works once) and leave the action with a
 * used one. On a stale session the dialog asks for no code; a password goes with the action itself
 * as `currentPassword` (a wrong one asks again), and a passkey re-authenticates the session, after
 * which the action runs with its code on the fresh session.
 */
export const withCodeHeld = async (auth: AuthClient, action: (currentPassword?: string) => Promise<void>) => {
  let password: string | undefined
  held = async (prompt) => {
    const proof = await askProof(auth, prompt, { codeHeld: true })
    if (proof?.password === undefined) return proof
    // Given back to the client as a cancel: the action is sent again below, with the password.
    password = proof.password
    return null
  }
  try {
    await action()
  } catch (err) {
    if (!(err instanceof ReauthenticationRequiredError) || password === undefined) throw err
    held = null
    for (;;) {
      try {
        return await action(password)
      } catch (refused) {
        if (!wrongPassword(refused)) throw refused
        const proof = await askProof(auth, { error: err, failure: refused as AuthClientError }, { codeHeld: true })
        if (proof === null) throw err
        if (proof.password === undefined) {
          await auth.reauth(proof)
          return await action()
        }
        password = proof.password
      }
    }
  } finally {
    held = null
  }
}
