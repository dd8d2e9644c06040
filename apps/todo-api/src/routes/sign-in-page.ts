/**
 * GET /sign-in?token=… (docs/reference/endpoints.md#pages): the page a sign-in mail links to.
 * Opening it spends nothing (mail scanners open links, docs/reference/email-sign-in.md#the-link):
 * its button POSTs the token to `/auth/email-sign-in/verify`, which sets the refresh cookie; an
 * account with a second factor is asked for its code on the same page. Then it opens the front
 * end, which takes the session from the cookie.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi'
import { problemResponse } from '@latchkey/auth/http'
import { pageCsp, pageHtml, sendPage, tokenQuery } from './pages.js'

const TITLE = 'Sign in'

const SCRIPT = `(() => {
  const button = document.getElementById('confirm')
  const second = document.getElementById('second')
  const code = document.getElementById('code')
  const status = document.getElementById('status')
  const token = new URLSearchParams(location.search).get('token')
  history.replaceState(null, '', location.pathname)
  if (!token) {
    button.hidden = true
    status.textContent = 'This link has no token. Ask for a new mail.'
    return
  }
  const post = (path, body) =>
    fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      credentials: 'same-origin',
    })
  const signedIn = () => {
    // The front end's flag that a refresh cookie may exist: it signs in with it.
    localStorage.setItem('latchkey:signed-in', '1')
    status.textContent = 'You are signed in.'
    location.replace('/')
  }
  const explain = async (res) => {
    const problem = await res.json().catch(() => null)
    status.textContent = (problem && problem.detail) || 'Something went wrong (' + res.status + ').'
  }
  let challenge = null
  button.addEventListener('click', async () => {
    button.disabled = true
    status.textContent = 'Signing in…'
    try {
      if (challenge === null) {
        const res = await post('auth/email-sign-in/verify', { token })
        if (res.status === 200) return signedIn()
        if (res.status === 202) {
          challenge = (await res.json()).challenge
          second.hidden = false
          button.textContent = 'Verify'
          // The field's hint says what to type, above the button; the status line is for outcomes.
          status.textContent = ''
          code.focus()
        } else {
          await explain(res)
          button.hidden = true
          return
        }
      } else {
        const res = await post('auth/two-factor/verify', { challenge, code: code.value.trim() })
        if (res.status === 200) return signedIn()
        await explain(res)
      }
    } catch {
      status.textContent = 'The server could not be reached. Try again.'
    }
    button.disabled = false
  })
})()`

const BODY = `<p>Press the button to sign in on this device.</p>
<div id="second" hidden><label for="code">Two-factor code</label><input id="code" autocomplete="one-time-code" maxlength="20" aria-describedby="code-hint"><p id="code-hint" class="hint">Enter the code from your authenticator app, or a recovery code.</p></div>
<button id="confirm" type="button">Sign me in</button>`

export const signInPageRoute = (app: OpenAPIHono) => {
  const html = pageHtml(TITLE, BODY, SCRIPT)
  const csp = pageCsp(SCRIPT)
  app.openapi(
    createRoute({
      method: 'get',
      path: '/sign-in',
      operationId: 'getSignInPage',
      security: [],
      tags: ['pages'],
      summary: 'Sign in: a page whose button spends the link token from the sign-in mail (opening it spends nothing)',
      request: {
        query: tokenQuery('The token from the sign-in mail; the page sends it only when the button is pressed'),
      },
      responses: {
        200: { description: 'The page', content: { 'text/html': { schema: z.string().max(html.length) } } },
        400: problemResponse('A `token` no token can be'),
      },
    }),
    (c) => sendPage(c, html, csp),
  )
}
