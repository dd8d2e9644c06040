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
}

const PAGES: TokenPage[] = [
  {
    path: '/verify-email',
    operationId: 'getVerifyEmailPage',
    title: 'Confirm your email address',
    button: 'Confirm my address',
    intro: 'Press the button to confirm that this email address is yours.',
    endpoint: 'auth/verify-email',
    done: 'Your email address is confirmed.',
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

const script = ({ endpoint, done }: TokenPage) => `(() => {
  const button = document.getElementById('confirm')
  const status = document.getElementById('status')
  const token = new URLSearchParams(location.search).get('token')
  history.replaceState(null, '', location.pathname)
  if (!token) {
    button.hidden = true
    status.textContent = 'This link has no token. Ask for a new mail.'
    return
  }
  button.addEventListener('click', async () => {
    button.disabled = true
    status.textContent = 'Confirming…'
    try {
      const res = await fetch(${JSON.stringify(endpoint)}, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token }),
        credentials: 'omit',
      })
      if (res.status === 204) {
        button.hidden = true
        status.textContent = ${JSON.stringify(done)}
        return
      }
      const problem = await res.json().catch(() => null)
      status.textContent = (problem && problem.detail) || 'Something went wrong (' + res.status + ').'
    } catch {
      status.textContent = 'The server could not be reached. Try again.'
    }
    button.disabled = false
  })
})()`

export const tokenPageRoutes = (app: OpenAPIHono) => {
  for (const page of PAGES) {
    const source = script(page)
    const html = pageHtml(page.title, `<p>${page.intro}</p>\n<button id="confirm" type="button">${page.button}</button>`, source)
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
