/**
 * What the app's HTML pages share (the reset, verification and email-change pages the mails link
 * to): one stylesheet, and a CSP that allows exactly a page's own inline style and script (by
 * hash), fetches to its own origin and nothing else. The pages read the token from the URL in the
 * browser, never echo it into the HTML, and spend it only with a POST.
 */
import { createHash } from 'node:crypto'
import { z } from '@hono/zod-openapi'
import { storableString } from '@latchkey/auth/http'
import type { Context } from 'hono'

export const PAGE_STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem;color:#222}
label{display:block;margin:1rem 0 .25rem}input{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{margin-top:1.25rem;padding:.5rem 1.25rem;font:inherit}#status{margin-top:1.25rem;min-height:1.5em}`

const hash = (source: string) => `'sha256-${createHash('sha256').update(source, 'utf8').digest('base64')}'`

/** The CSP of a page whose only script is `script`. */
export const pageCsp = (script: string) =>
  [
    "default-src 'none'",
    `style-src ${hash(PAGE_STYLE)}`,
    `script-src ${hash(script)}`,
    "connect-src 'self'",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ')

/**
 * The `?token=` of a page a mail links to. The page reads it in the browser; the server only
 * checks it could be a token (the limits of the auth routes' `token`), so anything else is a 400.
 */
export const tokenQuery = (description: string) =>
  z.object({ token: storableString().max(1024).optional().openapi({ description }) })

/** Answers a page: never cached, never sends its URL (with the token) in a Referer, held to its CSP. */
export const sendPage = (c: Context, html: string, csp: string) => {
  c.header('Cache-Control', 'no-store')
  c.header('Referrer-Policy', 'no-referrer')
  c.header('Content-Security-Policy', csp)
  return c.html(html, 200)
}

/** The page shell around a body and its one script. */
export const pageHtml = (title: string, body: string, script: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<h1>${title}</h1>
<noscript><p>This page needs JavaScript.</p></noscript>
${body}
<p id="status" role="status"></p>
<script>${script}</script>
</body>
</html>
`
