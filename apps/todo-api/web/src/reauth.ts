/**
 * Step-up in place: when an account action needs a recent sign-in (the server answers 401
 * `reauthentication-required`), a dialog asks for the password, and the code when two-factor
 * sign-in is on, over the screen the user is on. The client re-authenticates the session and
 * retries the action; nobody is signed out. Cancel (or Escape) gives up, and the action's form
 * shows why it did not happen.
 */
import type { AuthClient, ReauthenticationPrompt, ReauthProof } from '@latchkey/client'
import { describeError, form, h, uid } from './dom.js'

const TITLE = 'Confirm it’s you'

const age = (seconds: number) =>
  seconds % 60 === 0 ? `${seconds / 60} minute${seconds === 60 ? '' : 's'}` : `${seconds} seconds`

/** The client's `onReauthenticationRequired`: resolves with the proof the user typed, or `null` when they cancel. */
export const confirmIdentity = async (
  auth: AuthClient,
  { error, failure }: ReauthenticationPrompt,
): Promise<ReauthProof | null> => {
  const twoFactor = (await auth.twoFactor.status().catch(() => null))?.enabled ?? false
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
        const alert = dialog.querySelector('[role="alert"]')
        if (alert) alert.textContent = err instanceof DOMException ? 'No passkey was used.' : describeError(err)
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
        footer: [passkey, cancel],
      }),
    )
    document.body.append(dialog)
    dialog.showModal()
    dialog.querySelector('input')?.focus()
  })
}
