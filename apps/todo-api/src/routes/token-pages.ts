/**
 * GET /verify-email?token=… and GET /confirm-email?token=… (docs/reference/endpoints.md#pages): the pages the
 * verification and email-change mails link to. Opening one spends nothing (mail scanners open
 * links): the token is spent by a POST to the auth route when the person presses the button.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi'
import { problemResponse } from '@latchkey/auth/http'
import { pageCsp, pageHtml, sendPage, tokenQuery } from './pages.js'

interface TokenPage {
  path: '/verify-email' | '/confirm-email'
  operationId: string
  title: string
  button: string
  /** What pressing the button does, in a sentence above it. */
  intro: string
  /** The auth route the button POSTs `{ token }` to (relative: the page's own origin). */
  endpoint: string
  done: string
  /**
   * verify-email: the page asks for the account's password when the browser is not signed in,
   * sends it and the browser's refresh cookie (only looked at), and says on a 200 that the
   * password was removed (docs/reference/lifecycle.md#the-first-proof-of-the-mailbox).
   */
  keepsPassword?: { removed: string; dead: string }
}

/**
 * The front end's mark that a session may exist in this browser (web/src/main.ts, `SIGNED_IN`):
 * the page cannot read the HttpOnly refresh cookie, so this decides what it asks for. The server
 * decides what counts.
 */
export const SIGNED_IN_MARK = 'latchkey:signed-in'

const PASSWORD_FIELDS = `<p id="signed-in" hidden>This browser is signed in. If it is signed in to this account, just press the button: your password and sessions stay.</p>
<p id="signed-out" hidden>This browser is not signed in. If you set a password for this account, enter it to keep it.</p>
<label for="password">Password of this account (optional)</label>
<input id="password" type="password" autocomplete="current-password">
<p>Without the password or a browser signed in to this account, confirming removes the account's password and signs out every session. If someone else signed up with your address, that locks them out; you then sign in with a link mailed to this address.</p>`

const PAGES: TokenPage[] = [
  {
    path: '/verify-email',
    operationId: 'getVerifyEmailPage',
    title: 'Confirm your email address',
    button: 'Confirm my address',
    intro: 'Press the button to confirm that this email address is yours.',
    endpoint: 'auth/verify-email',
    done: 'Your email address is confirmed.',
    keepsPassword: {
      removed:
        'Your email address is confirmed. The password set for this account was removed and every session signed out: sign in with a link mailed to this address, or set a new password with “Forgot password”.',
      // A newer mail kills this one's link (docs/reference/lifecycle.md#resending-the-verification-mail).
      dead: 'This link is no longer valid: it was used, it expired, or a newer verification mail was sent (use the newest one). A sign-in link by email, or “Forgot password”, proves this address too.',
    },
  },
  {
    path: '/confirm-email',
    operationId: 'getConfirmEmailPage',
    title: 'Confirm your new email address',
    button: 'Make this my email address',
    intro: 'Press the button to make this new address the email of your account. Every session is then signed out.',
    endpoint: 'auth/confirm-email',
    done: 'Your email address has been changed and every session signed out. Sign in with the new address.',
  },
]

const script = ({ endpoint, done, keepsPassword }: TokenPage) => `(() => {
  const button = document.getElementById('confirm')
  const status = document.getElementById('status')
  const field = document.getElementById('password')
  const token = new URLSearchParams(location.search).get('token')
  history.replaceState(null, '', location.pathname)
  if (!token) {
    button.hidden = true
    status.textContent = 'This link has no token. Ask for a new mail.'
    return
  }
  if (field) document.getElementById(localStorage.getItem(${JSON.stringify(SIGNED_IN_MARK)}) ? 'signed-in' : 'signed-out').hidden = false
  button.addEventListener('click', async () => {
    button.disabled = true
    status.textContent = 'Confirming…'
    try {
      const body = field && field.value ? { token, password: field.value } : { token }
      const res = await fetch(${JSON.stringify(endpoint)}, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        credentials: ${keepsPassword ? "'same-origin'" : "'omit'"},
      })
      if (res.status === 204 || (res.status === 200 && ${keepsPassword ? 'true' : 'false'})) {
        button.hidden = true
        if (field) field.closest('.card').querySelectorAll('p:not(#status), label, input').forEach((el) => { el.hidden = true })
        status.textContent = res.status === 204 ? ${JSON.stringify(done)} : ${JSON.stringify(keepsPassword?.removed ?? done)}
        return
      }
      const problem = await res.json().catch(() => null)
      const dead = ${JSON.stringify(keepsPassword?.dead ?? null)}
      if (dead && problem && problem.type === 'urn:latchkey:problem:invalid-email-token') {
        status.textContent = dead
        return
      }
      status.textContent = (problem && ((problem.errors && problem.errors[0] && problem.errors[0].message) || problem.detail)) || 'Something went wrong (' + res.status + ').'
    } catch {
      status.textContent = 'The server could not be reached. Try again.'
    }
    button.disabled = false
  })
})()`

export const tokenPageRoutes = (app: OpenAPIHono) => {
  for (const page of PAGES) {
    const source = script(page)
    const fields = page.keepsPassword ? `\n${PASSWORD_FIELDS}` : ''
    const html = pageHtml(
      page.title,
      `<p>${page.intro}</p>${fields}\n<button id="confirm" type="button">${page.button}</button>`,
      source,
    )
    const csp = pageCsp(source)
    app.openapi(
      createRoute({
        method: 'get',
        path: page.path,
        operationId: page.operationId,
        security: [],
        tags: ['pages'],
        summary: `${page.title}: a page whose button spends the token from the mail (opening it spends nothing)`,
        request: {
          query: tokenQuery('The token from the mail; the page sends it only when the button is pressed'),
        },
        responses: {
          200: { description: 'The page', content: { 'text/html': { schema: z.string().max(html.length) } } },
          400: problemResponse('A `token` no token can be'),
        },
      }),
      (c) => sendPage(c, html, csp),
    )
  }
}
