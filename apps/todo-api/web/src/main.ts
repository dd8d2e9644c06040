/**
 * The reference app's front end: sign up, sign in (with the two-factor step), the todo list and
 * the account screens, on @latchkey/client. The access token lives in the client's memory only;
 * the refresh cookie is the browser's (HttpOnly). One flag in localStorage remembers that a
 * session may exist, so a first visit does not ask the server for a refresh it cannot have.
 */
import './style.css'
import { createAuthClient, type User } from '@latchkey/client'
import { accountScreen } from './account.js'
import { describeError, h, quiet } from './dom.js'
import { isOperator, operatorsScreen } from './operators.js'
import { confirmIdentity } from './reauth.js'
import { forgotScreen, type ScreenContext, signInScreen, signUpScreen } from './signed-out.js'
import { refusalText, takeLanding } from './social.js'
import { todoScreen } from './todo-screen.js'

// An account action that needs a recent sign-in asks for the password in place (see reauth.ts).
const auth = createAuthClient({
  baseUrl: location.origin,
  onReauthenticationRequired: (prompt) => confirmIdentity(auth, prompt),
})
const SIGNED_IN = 'latchkey:signed-in'

const view = document.getElementById('view') as HTMLElement
const nav = document.getElementById('nav') as HTMLElement

/** A message for the next screen (e.g. "You were signed out"). */
let notice = ''
/** A provider's sign-in waiting for its second factor (the landing URL's `second_factor`). */
let secondFactor: string | null = null

type Route = 'signin' | 'signup' | 'forgot' | 'todos' | 'account' | 'operators'
const PUBLIC: Route[] = ['signin', 'signup', 'forgot']

const routeOf = (hash: string): Route => {
  const name = hash.replace(/^#\/?/, '')
  if (name === 'signup' || name === 'forgot' || name === 'account' || name === 'signin' || name === 'operators') return name
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
  // What the last screen announced does not cover this one.
  quiet()
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
  const operators = h('a', { href: '#/operators', hidden: true }, 'Operators')
  nav.replaceChildren(
    h('a', { href: '#/' }, 'Todos'),
    h('a', { href: '#/account' }, 'Account'),
    operators,
    h('span', { class: 'who' }, user.email),
    signOut,
  )
  // The server's policy decides who is an operator; the link shows once it said yes.
  void operatorCheck(user).then((yes) => {
    operators.hidden = !yes
  })
}

/** Whether each signed-in user may use the operators' screen, asked once per user. */
const operatorChecks = new Map<string, Promise<boolean>>()
const operatorCheck = (user: User) => {
  let check = operatorChecks.get(user.id)
  if (!check) {
    check = isOperator(auth)
    operatorChecks.set(user.id, check)
  }
  return check
}

// --- the router -------------------------------------------------------------------------------

const noticeNext = (message: string) => {
  notice = message
}

/** How many renders have started: a screen that loads before it shows is shown only if no render started since. */
let renders = 0

const render = () => {
  const { user } = auth.getState()
  renderNav(user)
  const route = routeOf(location.hash)
  if (!user && !PUBLIC.includes(route)) return go('signin')
  if (user && PUBLIC.includes(route)) return go('todos')
  const mine = ++renders
  // A later render owns the view (and the notice waiting for it): this one's screen is dropped.
  const current: typeof show = (...content) => {
    if (mine === renders) show(...content)
  }
  const screen: ScreenContext = { auth, show: current, go, noticeNext }
  if (route === 'signin') {
    const challenge = secondFactor
    secondFactor = null
    return signInScreen(screen, challenge)
  }
  if (route === 'signup') return signUpScreen(screen)
  if (route === 'forgot') return forgotScreen(screen)
  if (route === 'account') return void accountScreen({ ...screen, user: user as User })
  if (route === 'operators') return operatorsScreen(screen)
  return void todoScreen(screen)
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
  // Back from a provider: a refusal in words, a link made, or a second factor to finish.
  const landing = await takeLanding(auth)
  secondFactor = landing?.secondFactor ?? null
  if (landing?.signedIn) localStorage.setItem(SIGNED_IN, '1')
  if (localStorage.getItem(SIGNED_IN)) {
    try {
      // Refused (the session ended meanwhile): forget the flag, so the next visit does not ask.
      if (!(await auth.refresh())) localStorage.removeItem(SIGNED_IN)
    } catch (err) {
      notice = describeError(err)
    }
  }
  // After the refresh, whose sign-in renders a screen by itself: the words go on the screen that stays.
  if (landing?.error) notice = refusalText(landing.error, landing.providerName)
  if (landing?.linked) notice = `${landing.providerName} is linked: you can sign in with it.`
  known = auth.getState().user
  render()
}

void start()
