/**
 * The account screen's API keys (docs/guide/api-keys.md): the list (revoke), and a form that makes
 * one with the scopes ticked and shows the key once, with a copy button. Making a key needs a
 * recent sign-in, which the dialog of reauth.ts collects when the server asks for it.
 */
import type { ApiKey, AuthClient } from '@latchkey/client'
import { announce, describeError, h, uid } from './dom.js'

/** The scopes this app declares (src/auth.ts), in the words its owner reads. */
const SCOPES = [
  ['todos:read', 'Read your todos'],
  ['todos:write', 'Create, change and delete your todos'],
] as const

const when = (iso: string) => new Date(iso).toLocaleDateString(undefined, { month: 'short', day: 'numeric', year: 'numeric' })

/** The key, shown once: a read-only field, a copy button, and what to do with it. */
const shownOnce = (key: string, done: () => void) => {
  const id = uid('new-key')
  const field = h('input', { id, type: 'text', readonly: true, value: key, class: 'key', spellcheck: 'false' })
  const copied = h('span', { role: 'status' })
  const copy = h('button', { type: 'button', class: 'secondary' }, 'Copy')
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(key)
      copied.textContent = 'Copied.'
    } catch {
      // No clipboard permission: the field is selected, so Ctrl+C / ⌘C copies it.
      field.select()
      copied.textContent = 'Select and copy it yourself.'
    }
  })
  const close = h('button', { type: 'button', class: 'link' }, 'I have stored it')
  close.addEventListener('click', done)
  return h(
    'div',
    { class: 'new-key' },
    h('label', { for: id, class: 'full' }, 'Your new API key'),
    field,
    copy,
    copied,
    h(
      'p',
      { class: 'hint' },
      'It is shown this once: store it in a password manager or a secret store now. Send it as ',
      h('code', {}, 'Authorization: Bearer lk_…'),
      '.',
    ),
    close,
  )
}

export const apiKeysSection = (auth: AuthClient, section: (title: string, ...content: (Node | string)[]) => HTMLElement) => {
  const list = h('ul', { class: 'sessions', 'aria-label': 'API keys' })
  const empty = h(
    'p',
    { class: 'empty' },
    'No API key yet. A key lets a script, a CI job or an agent use your todos without your password.',
  )
  const status = h('p', { class: 'error', role: 'alert' })
  const shown = h('div', {})

  const row = (key: ApiKey) => {
    const expired = new Date(key.expiresAt).getTime() <= Date.now()
    const used = key.lastUsedAt ? `last used ${when(key.lastUsedAt)}` : 'not used yet'
    const revoke = h('button', { type: 'button', class: 'link', 'aria-label': `Revoke ${key.name}` }, 'Revoke')
    revoke.addEventListener('click', async () => {
      status.textContent = ''
      revoke.disabled = true
      try {
        await auth.apiKeys.revoke(key.id)
        announce(`${key.name} is revoked.`)
        await load()
      } catch (err) {
        revoke.disabled = false
        status.textContent = describeError(err)
      }
    })
    return h(
      'li',
      {},
      h(
        'div',
        { class: 'session' },
        h('span', { class: 'device' }, `${key.name} `, h('code', {}, `${key.prefix}…`)),
        h('small', {}, `${key.scopes.join(', ')} · ${expired ? 'expired' : 'expires'} ${when(key.expiresAt)} · ${used}`),
      ),
      revoke,
    )
  }

  const load = async () => {
    try {
      const keys = await auth.apiKeys.list()
      list.replaceChildren(...keys.map(row))
      empty.hidden = keys.length > 0
    } catch (err) {
      status.textContent = describeError(err)
    }
  }

  const nameId = uid('key-name')
  const daysId = uid('key-days')
  const name = h('input', { id: nameId, name: 'name', type: 'text', required: true, maxlength: 100 })
  const days = h('input', { id: daysId, name: 'expiresInDays', type: 'number', min: 1, max: 365, value: 90, required: true })
  const boxes = SCOPES.map(([scope, what]) => {
    const id = uid('scope')
    const box = h('input', { id, type: 'checkbox', name: 'scopes', value: scope, checked: scope === 'todos:read' })
    return { box, row: h('div', { class: 'check' }, box, h('label', { for: id }, h('code', {}, scope), ` ${what}`)) }
  })
  const submit = h('button', { type: 'submit' }, 'Create the key')
  const create = h(
    'form',
    { 'aria-label': 'Create an API key', novalidate: true },
    h(
      'div',
      { class: 'field' },
      h('label', { for: nameId }, 'Name'),
      name,
      h('span', { class: 'hint' }, 'For example: CI deploy, my laptop script'),
    ),
    h('fieldset', {}, h('legend', {}, 'What it may do'), ...boxes.map((b) => b.row)),
    h('div', { class: 'field' }, h('label', { for: daysId }, 'Expires after (days)'), days),
    submit,
  )
  create.addEventListener('submit', async (event) => {
    event.preventDefault()
    status.textContent = ''
    const scopes = boxes.filter((b) => b.box.checked).map((b) => b.box.value)
    if (scopes.length === 0) {
      status.textContent = 'Tick at least one thing the key may do.'
      return
    }
    submit.disabled = true
    try {
      const created = await auth.apiKeys.create({ name: name.value.trim(), scopes, expiresInDays: Number(days.value) })
      name.value = ''
      shown.replaceChildren(shownOnce(created.key, () => shown.replaceChildren()))
      shown.querySelector('input')?.focus()
      announce(`API key ${created.name} created. Copy it now: it is shown once.`)
      await load()
    } catch (err) {
      status.textContent = describeError(err)
    } finally {
      submit.disabled = false
    }
  })

  empty.hidden = true
  void load()
  return section('API keys', list, empty, shown, create, status)
}
