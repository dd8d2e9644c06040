/**
 * What the app's HTML pages share (the reset, verification and email-change pages the mails link
 * to): one stylesheet, and a CSP that allows exactly a page's own inline style and script (by
 * hash), fetches to its own origin and nothing else. The pages read the token from the URL in the
 * browser, never echo it into the HTML, and spend it only with a POST.
 */
import { createHash } from 'node:crypto'
import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { storableString } from '../fields.js'

/** The look of the app's front end (web/src/style.css), in brief: its header bar, a card, its buttons and focus ring. */
export const PAGE_STYLE = `:root{color-scheme:light dark;--bg:#f4f5f8;--card:#fff;--text:#1d2330;--muted:#566074;--line:#d5d9e2;--accent:#2450b8;--accent-text:#fff}
@media (prefers-color-scheme:dark){:root{--bg:#12151c;--card:#1b1f29;--text:#e7eaf0;--muted:#a5aec0;--line:#363c4a;--accent:#8fb0ff;--accent-text:#0d1426}}
*{box-sizing:border-box}body{font:16px/1.5 system-ui,sans-serif;margin:0;background:var(--bg);color:var(--text)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}a{color:var(--accent)}
.bar{display:flex;align-items:center;padding:.75rem 1.25rem;background:var(--card);border-bottom:1px solid var(--line)}
.brand{font-weight:700;text-decoration:none;color:var(--text);display:inline-flex;align-items:center;gap:.5rem}
.brand::before{content:"";width:1.1rem;height:1.1rem;border-radius:.3rem;background:var(--accent)}
main{max-width:28rem;margin:2rem auto;padding:0 1rem}h1{font-size:1.5rem;margin:0 0 1rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:1.25rem 1.5rem}
label{display:block;margin:1rem 0 .25rem;font-weight:500}
input{width:100%;padding:.55rem .7rem;font:inherit;color:var(--text);background:var(--card);border:1px solid var(--line);border-radius:.5rem}
button{margin-top:1.25rem;padding:.55rem 1.2rem;font:inherit;font-weight:600;color:var(--accent-text);background:var(--accent);border:1px solid var(--accent);border-radius:.5rem;cursor:pointer}
.hint{margin:.25rem 0 1rem;color:var(--muted);font-size:.9rem}#status{margin:1rem 0 0}#status:empty{margin:0}.back{margin:1.25rem 0 0}.card>p:first-of-type{margin-top:0}.card>button{margin-top:.25rem}`

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

/** The page shell around a body and its one script: the app's header, and a way back to it. */
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
<header class="bar"><a class="brand" href="/">Latchkey todos</a></header>
<main>
<h1>${title}</h1>
<div class="card">
<noscript><p>This page needs JavaScript.</p></noscript>
${body}
<p id="status" role="status"></p>
</div>
<p class="back"><a href="/">Back to Latchkey todos</a></p>
</main>
<script>${script}</script>
</body>
</html>
`
