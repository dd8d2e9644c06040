/**
 * The reference app's front end: sign up, sign in (with the two-factor step), the todo list and
 * the account screens, on @latchkey/client. The access token lives in the client's memory only;
 * the refresh cookie is the browser's (HttpOnly). One flag in localStorage remembers that a
 * session may exist, so a first visit does not ask the server for a refresh it cannot have.
 */
import './style.css'
import { createAuthClient, type SignInResult, type TwoFactorChallenge, type User } from '@latchkey/client'
import { accountScreen } from './account.js'
import { announce, describeError, form, h } from './dom.js'
import { passkeySecondStep, passkeySignIn } from './passkeys.js'
import { confirmIdentity } from './reauth.js'
import { type Filter, type Todo, todoApi } from './todos.js'

// An account action that needs a recent sign-in asks for the password in place (see reauth.ts).
const auth = createAuthClient({
  baseUrl: location.origin,
  onReauthenticationRequired: (prompt) => confirmIdentity(auth, prompt),
})
const todos = todoApi(auth)
const SIGNED_IN = 'latchkey:signed-in'

const view = document.getElementById('view') as HTMLElement
const nav = document.getElementById('nav') as HTMLElement

/** A message for the next screen (e.g. "You were signed out"). */
let notice = ''

type Route = 'signin' | 'signup' | 'forgot' | 'todos' | 'account'
const PUBLIC: Route[] = ['signin', 'signup', 'forgot']

const routeOf = (hash: string): Route => {
  const name = hash.replace(/^#\/?/, '')
  if (name === 'signup' || name === 'forgot' || name === 'account' || name === 'signin') return name
  return 'todos'
}

const go = (route: Route) => {
  const hash = route === 'todos' ? '#/' : `#/${route}`
  if (location.hash === hash) render()
  else location.hash = hash
}

/** Shows a screen: its heading gets focus, so a screen reader starts there. */
const show = (title: string, ...content: Node[]) => {
  document.title = `${title} · Latchkey todos`
  const heading = h('h1', { tabindex: -1 }, title)
  const banner = notice ? h('p', { class: 'notice', role: 'status' }, notice) : null
  notice = ''
  view.replaceChildren(...[heading, banner, ...content].filter((node): node is HTMLElement => node !== null))
  heading.focus()
}

const renderNav = (user: User | null) => {
  if (!user) {
    nav.replaceChildren(h('a', { href: '#/signin' }, 'Sign in'), h('a', { href: '#/signup' }, 'Sign up'))
    return
  }
  const signOut = h('button', { type: 'button', class: 'link' }, 'Sign out')
  signOut.addEventListener('click', async () => {
    signOut.disabled = true
    // The client tells the subscriber below, which shows the sign-in screen with this notice.
    notice = 'You are signed out.'
    await auth.signOut().catch(() => undefined)
  })
  nav.replaceChildren(
    h('a', { href: '#/' }, 'Todos'),
    h('a', { href: '#/account' }, 'Account'),
    h('span', { class: 'who' }, user.email),
    signOut,
  )
}

// --- signed out -------------------------------------------------------------------------------

const signInScreen = () => {
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
  show('Sign in', passwordStep, passkeySignIn(auth, signedIn))
}

const signUpScreen = () =>
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
        notice = `Welcome, ${name}. We sent a link to ${email} to confirm the address.`
        go('todos')
      },
      footer: [h('p', {}, 'Have an account? ', h('a', { href: '#/signin' }, 'Sign in'))],
    }),
  )

const forgotScreen = () => {
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

// --- signed in --------------------------------------------------------------------------------

let filter: Filter = 'all'

const todoScreen = async () => {
  const list = h('ul', { class: 'todos', 'aria-label': 'Todos' })
  const status = h('p', { class: 'error', role: 'alert' })
  const empty = h('p', { class: 'empty' })

  const item = (todo: Todo) => {
    const id = `todo-${todo.id}`
    const box = h('input', { type: 'checkbox', id })
    box.checked = todo.done
    box.addEventListener('change', async () => {
      status.textContent = ''
      box.disabled = true
      try {
        await todos.setDone(todo.id, box.checked)
        announce(`${todo.title}: ${box.checked ? 'done' : 'not done'}`)
        if (filter !== 'all') await load()
      } catch (err) {
        box.checked = !box.checked
        status.textContent = describeError(err)
      } finally {
        box.disabled = false
      }
    })
    const remove = h('button', { type: 'button', class: 'link', 'aria-label': `Delete ${todo.title}` }, 'Delete')
    remove.addEventListener('click', async () => {
      status.textContent = ''
      try {
        await todos.remove(todo.id)
        announce(`Deleted ${todo.title}`)
        await load()
      } catch (err) {
        status.textContent = describeError(err)
      }
    })
    return h('li', {}, box, h('label', { for: id }, todo.title), remove)
  }

  const load = async () => {
    try {
      const found = await todos.list(filter)
      list.replaceChildren(...found.map(item))
      empty.textContent =
        found.length === 0
          ? filter === 'all'
            ? 'Nothing to do yet. Add your first todo above.'
            : `No ${filter} todos. Choose “All” to see every todo.`
          : ''
    } catch (err) {
      status.textContent = describeError(err)
    }
  }

  const adder = form({
    label: 'Add a todo',
    className: 'inline',
    submit: 'Add',
    fields: [{ name: 'title', label: 'New todo', maxlength: 500 }],
    async onSubmit({ title = '' }, element) {
      const todo = await todos.add(title)
      element.reset()
      announce(`Added ${todo.title}`)
      await load()
      ;(element.querySelector('input') as HTMLInputElement).focus()
    },
  })

  const filters = h(
    'fieldset',
    { class: 'filters' },
    h('legend', {}, 'Show'),
    ...(['all', 'open', 'done'] as const).map((value) => {
      const id = `filter-${value}`
      const radio = h('input', { type: 'radio', name: 'filter', id, value })
      radio.checked = filter === value
      radio.addEventListener('change', () => {
        filter = value
        void load()
      })
      return h('span', {}, radio, h('label', { for: id }, value === 'all' ? 'All' : value === 'open' ? 'Open' : 'Done'))
    }),
  )

  show('Todos', adder, filters, status, list, empty)
  await load()
}

// --- the router -------------------------------------------------------------------------------

const render = () => {
  const { user } = auth.getState()
  renderNav(user)
  const route = routeOf(location.hash)
  if (!user && !PUBLIC.includes(route)) return go('signin')
  if (user && PUBLIC.includes(route)) return go('todos')
  if (route === 'signin') return signInScreen()
  if (route === 'signup') return signUpScreen()
  if (route === 'forgot') return forgotScreen()
  if (route === 'account') {
    const noticeNext = (message: string) => {
      notice = message
    }
    return void accountScreen({ auth, show, user: user as User, noticeNext })
  }
  return void todoScreen()
}

let known: User | null = null
auth.subscribe(() => {
  const { user } = auth.getState()
  if (user) localStorage.setItem(SIGNED_IN, '1')
  else localStorage.removeItem(SIGNED_IN)
  if (Boolean(user) === Boolean(known)) {
    known = user
    if (user) renderNav(user)
    return
  }
  // Signed out elsewhere (another tab, a revoked session) or signed in: show what fits.
  if (known && !user && !notice) notice = 'You were signed out.'
  known = user
  render()
})

window.addEventListener('hashchange', render)

const start = async () => {
  view.replaceChildren(h('p', { role: 'status' }, 'Loading…'))
  if (localStorage.getItem(SIGNED_IN)) {
    try {
      // Refused (the session ended meanwhile): forget the flag, so the next visit does not ask.
      if (!(await auth.refresh())) localStorage.removeItem(SIGNED_IN)
    } catch (err) {
      notice = describeError(err)
    }
  }
  known = auth.getState().user
  render()
}

void start()
