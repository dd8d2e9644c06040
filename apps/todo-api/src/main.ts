/**
 * Entry point: read the configuration, open the database, listen, and stop gracefully on
 * SIGTERM/SIGINT (no new connections, in-flight requests finish, database closed, exit 0).
 * `node dist/main.js` runs in production unless NODE_ENV says otherwise; `--dev` (the
 * `pnpm dev` script) runs in development and may generate AUTH_SECRET.
 */
import { readFileSync } from 'node:fs'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { appDir, type Config, ConfigError, describeDatabase, loadConfig } from './config.js'
import type { AppDatabase } from './db/index.js'
import type { Mailer } from './mail.js'
import { AppResponse } from './response.js'

const SHUTDOWN_GRACE_MS = 10_000

const die = (message: string): never => {
  console.error(`todo-api: ${message}`)
  process.exit(1)
}

const errorMessage = (err: unknown): string => (err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err))

let config: Config
try {
  config = loadConfig(process.env, { dev: process.argv.includes('--dev') })
} catch (err) {
  if (err instanceof ConfigError) die(err.message)
  throw err
}
// Libraries read it too; the config decided it (production unless set, development under --dev).
process.env.NODE_ENV = config.nodeEnv
for (const notice of config.notices) console.log(notice)

// Loaded once the configuration is known to be good, so a refusal comes at once.
const [
  { getConnInfo },
  { getRequestListener, RequestError },
  { AuthError },
  { toAuthError },
  { createApp },
  { openDatabase },
  { createMailer },
  { batchedLines },
] = await Promise.all([
  import('@hono/node-server/conninfo'),
  import('@hono/node-server'),
  import('@latchkey/auth'),
  import('@latchkey/auth/http'),
  import('./app.js'),
  import('./db/index.js'),
  import('./mail.js'),
  import('./log.js'),
])

// The front end: Vite's development server (reloading) under --dev, else the build in dist/web.
const { builtFrontEnd } = await import('./routes/front-end.js')
const devFrontEndModule = process.argv.includes('--dev') ? await import('./dev-front-end.js') : null

let db: AppDatabase
try {
  db = await openDatabase(config.database)
} catch (err) {
  die(`cannot open the database named by DATABASE_URL (${describeDatabase(config.database)}): ${errorMessage(err)}`)
}

// The app needs PUBLIC_URL, whose default names the port actually bound (PORT=0 picks a free one),
// so the server listens first and the app is built before the first request can arrive.
let handle: (request: Request, env: object) => Response | Promise<Response> = () => new Response(null, { status: 503 })
let closeAuth: () => Promise<void> = async () => {}
const listener = getRequestListener((request, env) => handle(request, env), {
  // Requests the adapter cannot turn into a URL (HTTP/1.0 without Host, a malformed Host, a
  // backslash in the path) never reach the app: answer them as the app answers every error.
  errorHandler: (err) =>
    (err instanceof RequestError
      ? new AuthError('validation_failed', { detail: 'The request target or Host header is malformed.' })
      : toAuthError(err)
    ).getResponse(),
})

let stopping = false
const inFlight = new Set<ServerResponse>()
// Handlers still running. One can outlive its connection (the client hung up mid-request), and
// must still find the database open: shutdown waits for these, not only for the sockets.
const handling = new Set<Promise<unknown>>()
// AppResponse hands the app's preset headers to writeHead in one object (response.ts).
const server = createServer({ ServerResponse: AppResponse }, (req, res) => {
  if (dev?.handle(req, res)) return
  inFlight.add(res)
  res.once('close', () => inFlight.delete(res))
  // While stopping, a kept-alive connection is closed after its response instead of holding the exit.
  if (stopping) res.setHeader('Connection', 'close')
  const handled: Promise<unknown> = listener(req, res).finally(() => handling.delete(handled))
  handling.add(handled)
  return handled
})

const dev = devFrontEndModule ? await devFrontEndModule.devFrontEnd(server) : null

/**
 * A request Node's HTTP parser refuses (headers over 16 KiB, a malformed Content-Length, a
 * request line that is not HTTP) never reaches the adapter: answer it as the app answers every
 * error, a problem document with nosniff, instead of Node's bare status line.
 */
server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
  if (err.code === 'ECONNRESET' || !socket.writable) return socket.destroy()
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new AuthError('header_fields_too_large', { detail: 'The request line and headers are limited to 16 KiB.' })
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AuthError('request_timeout', { detail: 'The request did not arrive in time.' })
        : new AuthError('validation_failed', { detail: 'The request is not well-formed HTTP/1.1.' })
  const doc = error.toJSON()
  const body = JSON.stringify(doc)
  socket.end(
    `HTTP/1.1 ${error.status} ${doc.title}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'X-Content-Type-Options: nosniff\r\n' +
      'Cache-Control: no-store\r\n' +
      `Connection: close\r\n\r\n${body}`,
  )
})

server.once('error', (err: NodeJS.ErrnoException) => {
  db.close()
  die(
    err.code === 'EADDRINUSE' ? `PORT ${config.port} is already in use` : `cannot listen on PORT ${config.port}: ${err.message}`,
  )
})

server.listen(config.port, () => {
  const { port } = server.address() as AddressInfo
  const publicUrl = config.publicUrl ?? `http://localhost:${port}`
  const { version } = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')) as { version: string }
  let mailer: Mailer
  // The request log and the audit lines: one write per turn of the event loop, in order.
  const lines = batchedLines()
  try {
    mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, publicUrl, production: config.production })
    const app = createApp({
      secret: config.secrets,
      encryptionKeys: config.encryptionKeys,
      signingKeys: config.signingKeys,
      db,
      mailer,
      publicUrl,
      production: config.production,
      trustProxy: config.trustProxy,
      emailSignUp: config.emailSignUp,
      passkeyRpId: config.passkeyRpId,
      trustedOrigins: config.trustedOrigins,
      accessTokenTtl: config.accessTokenTtl,
      freshAge: config.freshAge,
      maxSessions: config.maxSessions,
      pwnedPasswordsUrl: config.pwnedPasswordsUrl,
      providers: config.providers,
      // Bun and Deno run this server through their node:http; the library asks for the address
      // there (on Node it reads Node's request itself).
      ...('Bun' in globalThis || 'Deno' in globalThis ? { getConnInfo } : {}),
      version,
      logRequest: lines,
      audit: lines,
      frontEnd: dev?.frontEnd ?? builtFrontEnd(join(appDir, 'dist', 'web')),
    })
    handle = app.fetch
    closeAuth = app.close
  } catch (err) {
    server.close()
    db.close()
    die(errorMessage(err))
  }

  console.log(`listening on http://localhost:${port} (NODE_ENV=${config.nodeEnv})`)
  if (!config.production) console.log(`API reference: http://localhost:${port}/docs`)

  let stoppingAt = 0
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // One Ctrl-C under `node --watch` (pnpm dev) arrives twice: from the terminal to the whole
      // process group, and forwarded by the watcher. Only a signal a second later is a second one.
      if (Date.now() - stoppingAt < 1_000) return
      console.error(`${signal} again: exiting without waiting`)
      process.exit(1)
    }
    stopping = true
    stoppingAt = Date.now()
    console.log(`${signal}: shutting down, waiting for in-flight requests`)
    // Connections still busy after the grace period are cut so the process does end.
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS)
    force.unref()
    server.close(async () => {
      clearTimeout(force)
      await Promise.race([
        Promise.allSettled(handling).then(() => closeAuth()),
        sleep(SHUTDOWN_GRACE_MS, undefined, { ref: false }),
      ])
      mailer.close()
      await dev?.close()
      await db.close()
      console.log('stopped')
      process.exit(0)
    })
    server.closeIdleConnections()
    for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close')
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
})
