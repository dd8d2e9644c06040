/**
 * GET /reset-password?token=…: the page the reset mail links to. A self-contained form that
 * POSTs JSON to /auth/reset-password. Nothing is loaded from elsewhere; the inline style and
 * script are allowed by their hashes in the CSP, and the token is read from the URL by the
 * script (never echoed into the HTML), then removed from the address bar.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi'
import { problemResponse } from '@latchkey/auth/http'
import { pageCsp, pageHtml, sendPage, tokenQuery } from './pages.js'

const SCRIPT = `(() => {
  const form = document.getElementById('form')
  const status = document.getElementById('status')
  const token = new URLSearchParams(location.search).get('token')
  history.replaceState(null, '', location.pathname)
  if (!token) {
    form.hidden = true
    status.textContent = 'This link has no reset token. Ask for a new reset mail.'
    return
  }
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const newPassword = form.elements.password.value
    if (newPassword !== form.elements.confirm.value) {
      status.textContent = 'The two passwords differ.'
      return
    }
    form.elements.submit.disabled = true
    status.textContent = 'Saving…'
    try {
      const res = await fetch('auth/reset-password', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token, newPassword }),
        credentials: 'omit',
      })
      if (res.status === 204) {
        form.hidden = true
        status.textContent = 'Your password has been changed and every session signed out. Sign in with the new password.'
        return
      }
      const problem = await res.json().catch(() => null)
      status.textContent = (problem && ((problem.errors && problem.errors[0] && problem.errors[0].message) || problem.detail)) || 'Something went wrong (' + res.status + ').'
    } catch {
      status.textContent = 'The server could not be reached. Try again.'
    }
    form.elements.submit.disabled = false
  })
})()`

/** The page's CSP: exactly its own style and script, fetches to its own origin, nothing else. */
export const RESET_PAGE_CSP = pageCsp(SCRIPT)

const PAGE = pageHtml(
  'Reset your password',
  `<form id="form">
<input type="email" name="username" autocomplete="username" hidden>
<label for="password">New password (at least 8 characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required>
<label for="confirm">Repeat it</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="8" required>
<button name="submit" type="submit">Set new password</button>
</form>`,
  SCRIPT,
)

export const resetPageRoute = (app: OpenAPIHono) =>
  app.openapi(
    createRoute({
      method: 'get',
      path: '/reset-password',
      operationId: 'getResetPasswordPage',
      security: [],
      tags: ['pages'],
      summary: 'HTML form that redeems a reset token (the link in the reset mail)',
      request: {
        // The page reads the token in the browser and sends it in a POST body; the server only
        // checks it could be one (the limits of POST /auth/reset-password's `token`).
        query: tokenQuery('The reset token from the mail; the page never sends it anywhere but the form'),
      },
      responses: {
        200: { description: 'The reset form', content: { 'text/html': { schema: z.string().max(PAGE.length) } } },
        400: problemResponse('A `token` no reset token can be'),
      },
    }),
    (c) => sendPage(c, PAGE, RESET_PAGE_CSP),
  )
