/**
 * Passkeys in the front end (docs/reference/passkeys.md): "Sign in with a passkey" and the email
 * field's autofill on the sign-in screen, a passkey as the two-factor step, and the account's
 * passkeys list (add with the mailed code, rename, remove). When the server has passkeys off
 * (404) or the browser has no WebAuthn, the passkey parts stay hidden.
 */
import { type AuthClient, AuthClientError, type Passkey, type SignInResult } from '@latchkey/client'
import { announce, describeError, dismissed, form, h } from './dom.js'

/** Passkeys are off on this server, or the browser cannot use them. */
const unavailable = (err: unknown) => err instanceof AuthClientError && err.status === 404

/**
 * The sign-in screen's passkey button, and the autofill request started beside it. `done` gets
 * what a sign-in answered (signed in, or the two-factor challenge).
 */
export const passkeySignIn = (auth: AuthClient, done: (result: SignInResult) => void) => {
  const status = h('p', { class: 'error', role: 'alert' })
  const button = h('button', { type: 'button', class: 'secondary' }, 'Sign in with a passkey')
  const box = h('div', { class: 'passkey-sign-in' }, button, status)
  box.hidden = !auth.passkeys.supported()
  if (box.hidden) return box
  const failed = (err: unknown) => {
    if (unavailable(err)) box.hidden = true
    else if (!dismissed(err)) status.textContent = describeError(err)
  }
  button.addEventListener('click', async () => {
    status.textContent = ''
    button.disabled = true
    try {
      // A waiting autofill request is aborted first (one ceremony at a time).
      done(await auth.passkeys.signIn())
    } catch (err) {
      failed(err)
    } finally {
      button.disabled = false
    }
  })
  // Autofill: the email field (autocomplete="username webauthn") offers the site's passkeys.
  void auth.passkeys.autofillSupported().then((yes) => {
    if (yes) auth.passkeys.signIn({ autofill: true }).then(done, failed)
  })
  return box
}

/** The two-factor step's passkey button, when the challenge offers one. */
export const passkeySecondStep = (
  auth: AuthClient,
  challenge: Parameters<AuthClient['passkeys']['verifyTwoFactor']>[0] & { methods?: string[] },
  done: () => void,
) => {
  if (!challenge.methods?.includes('passkey') || !auth.passkeys.supported()) return null
  const status = h('p', { class: 'error', role: 'alert' })
  const button = h('button', { type: 'button', class: 'secondary' }, 'Use a passkey instead')
  button.addEventListener('click', async () => {
    status.textContent = ''
    button.disabled = true
    try {
      await auth.passkeys.verifyTwoFactor(challenge)
      done()
    } catch (err) {
      if (!dismissed(err)) status.textContent = describeError(err)
    } finally {
      button.disabled = false
    }
  })
  return h('div', { class: 'passkey-sign-in' }, button, status)
}

const when = (iso: string) => new Date(iso).toLocaleDateString(undefined, { month: 'short', day: 'numeric', year: 'numeric' })

/** The account screen's passkeys: the list (rename, remove), an empty state, and adding one with the mailed code. */
export const passkeysSection = (auth: AuthClient, section: (title: string, ...content: (Node | string)[]) => HTMLElement) => {
  const list = h('ul', { class: 'sessions', 'aria-label': 'Passkeys' })
  const empty = h('p', { class: 'empty' }, 'No passkey yet. A passkey signs you in with your fingerprint, face or device PIN.')
  const status = h('p', { class: 'error', role: 'alert' })
  const adding = h('div', { class: 'passkey-add' })
  const add = h('button', { type: 'button', class: 'secondary' }, 'Add a passkey')

  const row = (passkey: Passkey) => {
    const used = passkey.lastUsedAt ? `last used ${when(passkey.lastUsedAt)}` : 'not used yet'
    const rename = h('button', { type: 'button', class: 'link', 'aria-label': `Rename ${passkey.name}` }, 'Rename')
    const remove = h('button', { type: 'button', class: 'link', 'aria-label': `Remove ${passkey.name}` }, 'Remove')
    const item = h(
      'li',
      {},
      h(
        'div',
        { class: 'session' },
        h('span', { class: 'device' }, passkey.name),
        h('small', {}, `Added ${when(passkey.createdAt)} · ${used}${passkey.backedUp ? ' · synced' : ''}`),
      ),
      rename,
      remove,
    )
    rename.addEventListener('click', () => {
      item.replaceChildren(
        form({
          label: `Rename ${passkey.name}`,
          className: 'inline',
          submit: 'Save',
          fields: [{ name: 'name', label: 'Name', maxlength: 64, value: passkey.name }],
          async onSubmit({ name = '' }) {
            await auth.passkeys.rename(passkey.id, name.trim())
            announce(`Renamed to ${name.trim()}.`)
            await load()
          },
        }),
      )
      item.querySelector('input')?.focus()
    })
    remove.addEventListener('click', async () => {
      status.textContent = ''
      remove.disabled = true
      try {
        await auth.passkeys.remove(passkey.id)
        announce(`${passkey.name} is removed.`)
        await load()
      } catch (err) {
        remove.disabled = false
        status.textContent = describeError(err)
      }
    })
    return item
  }

  const load = async () => {
    try {
      const passkeys = await auth.passkeys.list()
      list.replaceChildren(...passkeys.map(row))
      empty.hidden = passkeys.length > 0
    } catch (err) {
      if (unavailable(err)) region.hidden = true
      else status.textContent = describeError(err)
    }
  }

  add.addEventListener('click', async () => {
    status.textContent = ''
    add.disabled = true
    try {
      await auth.passkeys.start()
    } catch (err) {
      add.disabled = false
      status.textContent = describeError(err)
      return
    }
    const note = h('p', { role: 'status' }, 'We emailed you a 6-digit code. Enter it, then confirm with your device.')
    adding.replaceChildren(
      note,
      form({
        label: 'Add a passkey',
        submit: 'Create the passkey',
        fields: [
          { name: 'emailCode', label: 'Code from the email', autocomplete: 'one-time-code', inputmode: 'numeric', maxlength: 6 },
          { name: 'name', label: 'Name', maxlength: 64, required: false, hint: 'For example: Laptop, Phone' },
        ],
        async onSubmit({ emailCode = '', name = '' }) {
          try {
            const added = await auth.passkeys.register({
              emailCode: emailCode.trim(),
              ...(name.trim() ? { name: name.trim() } : {}),
            })
            adding.replaceChildren()
            add.disabled = false
            announce(`Passkey ${added.name} added.`)
            await load()
          } catch (err) {
            // Closed or refused: the options and the mailed code still hold, so the form stays.
            if (dismissed(err)) {
              note.textContent = 'No passkey was created. Choose “Create the passkey” to try again.'
              return
            }
            // A refused attempt spends the options' challenge: start again, with a new code.
            adding.replaceChildren()
            add.disabled = false
            status.textContent = `${describeError(err)} Choose “Add a passkey” again for a new code.`
            add.focus()
          }
        },
      }),
    )
    adding.querySelector('input')?.focus()
  })

  empty.hidden = true
  const region = section('Passkeys', list, empty, add, adding, status)
  region.hidden = !auth.passkeys.supported()
  if (!region.hidden) void load()
  return region
}
