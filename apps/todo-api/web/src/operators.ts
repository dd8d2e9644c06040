/**
 * The operators' screen (docs/guide/operators.md), for accounts with the `admin` role: find an
 * account by a prefix of its email or name, open it to see its sessions, factors and state, and
 * act on it. Every action asks for a confirmation first (disabling also for a reason); a write
 * older than the fresh-session age asks for the password in place (reauth.ts). An operator never
 * sees a password, token or code here: the API has none to show.
 */
import type { AuthClient } from '@latchkey/client'
import { describeError, form, h } from './dom.js'
import { section } from './section.js'
import { refusal } from './todos.js'

export interface AdminUser {
  id: string
  email: string
  name: string
  emailVerified: boolean
  createdAt: string
  disabledAt: string | null
  lastSignInAt: string | null
  twoFactor: boolean
  passkeys: number
  identities: string[]
  sessions: number
}

interface Page {
  users: AdminUser[]
  next: string | null
}

const when = (iso: string | null) =>
  iso === null ? 'never' : new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })

/** The operators' routes, through the client's authorized `fetch` (a stale session is asked to confirm first). */
export const operatorApi = (auth: AuthClient) => {
  const call = async <T>(path: string, method = 'GET', body?: unknown): Promise<T> => {
    const response = await auth.fetch(`/auth/admin${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
    })
    if (!response.ok) throw await refusal(response)
    return (response.status === 204 ? null : await response.json()) as T
  }
  const user = (id: string) => `/users/${encodeURIComponent(id)}`
  return {
    search: (query: string, cursor: string | null) =>
      call<Page>(`/users?limit=20&query=${encodeURIComponent(query)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
    get: (id: string) => call<AdminUser>(user(id)),
    disable: (id: string, reason: string) => call<null>(`${user(id)}/disable`, 'POST', { reason }),
    enable: (id: string) => call<null>(`${user(id)}/enable`, 'POST'),
    signOut: (id: string) => call<null>(`${user(id)}/sessions`, 'DELETE'),
    clearTwoFactor: (id: string) => call<null>(`${user(id)}/two-factor`, 'DELETE'),
    sendReset: (id: string) => call<{ message: string }>(`${user(id)}/send-password-reset`, 'POST'),
    verifyEmail: (id: string) => call<null>(`${user(id)}/verify-email`, 'POST'),
  }
}

/** Whether the signed-in user is an operator, as the server's `admin` policy says now (`GET /admin/access`). */
export const isOperator = async (auth: AuthClient): Promise<boolean> => {
  const response = await auth.fetch('/admin/access').catch(() => null)
  if (response?.status !== 200) return false
  return ((await response.json()) as { operator?: unknown }).operator === true
}

type Api = ReturnType<typeof operatorApi>

interface Action {
  label: string
  /** What the confirmation says will happen. */
  consequence: string
  run: (reason: string) => Promise<string>
  /** Disabling asks for a reason (for the audit log). */
  reason?: true
  shown: boolean
}

/** The facts of one account, as a description list. */
const facts = (user: AdminUser) =>
  h(
    'dl',
    { class: 'facts' },
    ...(
      [
        ['Email', `${user.email}${user.emailVerified ? ' (verified)' : ' (not verified)'}`],
        ['Status', user.disabledAt ? `Disabled since ${when(user.disabledAt)}` : 'Active'],
        ['Signed up', when(user.createdAt)],
        ['Last sign-in', when(user.lastSignInAt)],
        ['Sessions', String(user.sessions)],
        ['Two-factor sign-in', user.twoFactor ? 'On' : 'Off'],
        ['Passkeys', String(user.passkeys)],
        ['Linked providers', user.identities.length > 0 ? user.identities.join(', ') : 'None'],
      ] as const
    ).flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  )

/** An action's button, which opens its confirmation in place (with a reason field for disabling). */
const actionButton = (action: Action, done: (message: string) => void) => {
  const slot = h('div', { class: 'action' })
  const open = h('button', { type: 'button', class: 'secondary' }, action.label)
  const confirmation = form({
    label: `Confirm: ${action.label}`,
    className: 'confirm',
    submit: `Yes, ${action.label.charAt(0).toLowerCase()}${action.label.slice(1)}`,
    fields: action.reason ? [{ name: 'reason', label: 'Reason (kept in the audit log)', maxlength: 500 }] : [],
    footer: [
      h('p', { class: 'hint' }, action.consequence),
      h('button', { type: 'button', class: 'link', onclick: () => close() }, 'Cancel'),
    ],
    async onSubmit({ reason = '' }) {
      done(await action.run(reason))
    },
  })
  const close = () => {
    confirmation.remove()
    open.hidden = false
    open.focus()
  }
  open.addEventListener('click', () => {
    open.hidden = true
    slot.append(confirmation)
    ;(confirmation.querySelector('input, button[type=submit]') as HTMLElement | null)?.focus()
  })
  slot.append(open)
  return slot
}

/** One account's page: its facts and the actions that apply to it now. */
const userPanel = (api: Api, user: AdminUser, refresh: (message: string) => void) => {
  const actions: Action[] = [
    {
      label: 'Disable the account',
      consequence: 'Every session ends now, and signing in is refused until the account is enabled. The user is mailed.',
      reason: true,
      shown: user.disabledAt === null,
      run: async (reason) => {
        await api.disable(user.id, reason)
        return `${user.email} is disabled.`
      },
    },
    {
      label: 'Enable the account',
      consequence: 'The user can sign in again. They are mailed.',
      shown: user.disabledAt !== null,
      run: async () => {
        await api.enable(user.id)
        return `${user.email} is enabled.`
      },
    },
    {
      label: 'Sign out everywhere',
      consequence: 'Every session of the account ends now. The user is mailed.',
      shown: user.sessions > 0,
      run: async () => {
        await api.signOut(user.id)
        return `${user.email} is signed out everywhere.`
      },
    },
    {
      label: 'Turn off two-factor sign-in',
      consequence: 'For a user who lost both their authenticator and their recovery codes. The user is mailed.',
      shown: user.twoFactor,
      run: async () => {
        await api.clearTwoFactor(user.id)
        return `Two-factor sign-in is off for ${user.email}.`
      },
    },
    {
      label: 'Send a password reset link',
      consequence: 'The ordinary reset link goes to the account’s own address; you never see it.',
      shown: true,
      run: async () => (await api.sendReset(user.id)).message,
    },
    {
      label: 'Mark the email verified',
      consequence: 'Only when you know the address is the user’s. The user is mailed.',
      shown: !user.emailVerified,
      run: async () => {
        await api.verifyEmail(user.id)
        return `${user.email} is marked verified.`
      },
    },
  ]
  return section(
    user.name,
    facts(user),
    h('h3', {}, 'Actions'),
    ...actions.filter((a) => a.shown).map((a) => actionButton(a, refresh)),
  )
}

/** The screen: the search, its results a page at a time, and the account that is open. */
export const operatorsScreen = ({ auth, show }: { auth: AuthClient; show: (title: string, ...content: Node[]) => void }) => {
  const api = operatorApi(auth)
  const status = h('p', { role: 'status' })
  const results = h('ul', { class: 'users', 'aria-label': 'Accounts found' })
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Show more')
  const detail = h('div', { class: 'user-detail' })
  let query = ''
  let next: string | null = null

  const open = async (id: string, message = '') => {
    try {
      const user = await api.get(id)
      // The page shows what an action did in a status line above the account (read out once).
      const panel = userPanel(api, user, (done) => void open(id, done))
      detail.replaceChildren(...(message ? [h('p', { class: 'notice', role: 'status' }, message)] : []), panel)
      if (!message) (panel.querySelector('h2') as HTMLElement | null)?.focus()
    } catch (err) {
      detail.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(err)))
    }
  }
  const row = (user: AdminUser) =>
    h(
      'li',
      { class: 'user-row' },
      h('button', { type: 'button', class: 'link', onclick: () => void open(user.id) }, `${user.name} <${user.email}>`),
      user.disabledAt ? h('span', { class: 'badge' }, 'disabled') : null,
    )
  const load = async (append: boolean) => {
    const page = await api.search(query, append ? next : null)
    next = page.next
    more.hidden = next === null
    if (append) results.append(...page.users.map(row))
    else results.replaceChildren(...page.users.map(row))
    status.textContent = append
      ? ''
      : `${page.users.length}${next ? '+' : ''} account${page.users.length === 1 ? '' : 's'} found.`
  }
  more.addEventListener('click', () => void load(true).catch((err) => (status.textContent = describeError(err))))

  const search = form({
    label: 'Find accounts',
    submit: 'Search',
    fields: [{ name: 'query', label: 'Email or name starts with', required: false, maxlength: 254, autocomplete: 'off' }],
    async onSubmit(values) {
      query = values.query ?? ''
      detail.replaceChildren()
      await load(false)
    },
  })
  show('Operators', search, status, results, more, detail)
  void load(false).catch((err) => {
    status.textContent = describeError(err)
  })
}
