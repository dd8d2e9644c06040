/**
 * Test support: the real server as a child process (`node dist/main.js`), an SMTP sink on
 * loopback, and small HTTP helpers. Nothing here imports the app: tests only see the wire.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as OTPAuth from 'otpauth'
import { SMTPServer } from 'smtp-server'
import { pgUnreachable } from '../../../packages/auth/test/postgres-probe.js'

export const APP_DIR = fileURLToPath(new URL('..', import.meta.url))
export const MAIN = join(APP_DIR, 'dist', 'main.js')
export const REPO_ROOT = join(APP_DIR, '..', '..')

export const freshDir = (): string => mkdtempSync(join(tmpdir(), 'todo-api-test-'))
export const randomSecret = (): string => randomBytes(32).toString('base64url')

type Env = Record<string, string | undefined>

/** Only what the test sets, plus PATH: the child never inherits NODE_ENV=test or a developer's AUTH_SECRET. */
const childEnv = (env: Env): NodeJS.ProcessEnv => {
  const out: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME }
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value
  return out
}

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

export interface RunningServer {
  /** `http://127.0.0.1:<port>`. */
  base: string
  port: number
  /** The database file the server uses. */
  dbPath: string
  process: ChildProcess
  stdout(): string
  stderr(): string
  /** Resolves once standard output has a line matching `pattern`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>
  exited: Promise<Exit>
  /** Sends the signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Exit>
}

export interface StartOptions {
  env?: Env
  args?: string[]
  /** Script to run; default `dist/main.js` of this app. */
  main?: string
  /** The runtime and its arguments before the script; default this Node (`process.execPath`). */
  runtime?: string[]
  /** Leave `AUTH_SECRET` and `AUTH_ENCRYPTION_KEY` unset unless `env` sets them. */
  noDefaultSecret?: boolean
  /** How long to wait for the listening line; default 10 s. */
  startTimeoutMs?: number
  /** The folder the server runs in; default the test's. */
  cwd?: string
}

const watch = (child: ChildProcess) => {
  let stdout = ''
  let stderr = ''
  const listeners = new Set<() => void>()
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    for (const l of listeners) l()
  })
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  // 'close', not 'exit': 'exit' can fire before the child's piped output has been read, and a
  // refusal's one stderr line was then lost (1 run in ~20 under load).
  const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })))
  const waitForOutput = (pattern: RegExp, timeoutMs = 10_000) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const line = stdout.split('\n').find((l) => pattern.test(l))
        if (line === undefined) return false
        cleanup()
        resolve(line)
        return true
      }
      const timer = setTimeout(() => {
        cleanup()
        reject(new Error(`no output matching ${pattern} within ${timeoutMs} ms.\nstdout: ${stdout}\nstderr: ${stderr}`))
      }, timeoutMs)
      const onExit = () => {
        if (check()) return
        cleanup()
        reject(new Error(`process exited before printing ${pattern}.\nstdout: ${stdout}\nstderr: ${stderr}`))
      }
      const cleanup = () => {
        clearTimeout(timer)
        listeners.delete(check)
        child.off('exit', onExit)
      }
      listeners.add(check)
      child.once('exit', onExit)
      check()
    })
  return { stdout: () => stdout, stderr: () => stderr, exited, waitForOutput }
}

/** Starts the server on a free port with a fresh SQLite file and waits for its listening line. */
export const startServer = async (options: StartOptions = {}): Promise<RunningServer> => {
  const dbPath = join(freshDir(), 'todo.db')
  const env = childEnv({
    PORT: '0',
    DATABASE_URL: `file:${dbPath}`,
    NODE_ENV: 'development',
    // Hermetic: a production-mode server would ask the public breached-password service.
    PWNED_PASSWORDS_URL: 'off',
    ...(options.noDefaultSecret ? {} : { AUTH_SECRET: randomSecret(), AUTH_ENCRYPTION_KEY: randomSecret() }),
    ...options.env,
  })
  const [command = process.execPath, ...runtimeArgs] = options.runtime ?? []
  const child = spawn(command, [...runtimeArgs, options.main ?? MAIN, ...(options.args ?? [])], {
    env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const io = watch(child)
  const line = await io.waitForOutput(/^listening on http:\/\/\S+:\d+/, options.startTimeoutMs)
  const port = Number(/:(\d+)/.exec(line.replace('http://', ''))?.[1])
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    dbPath: env.DATABASE_URL?.slice('file:'.length) ?? dbPath,
    process: child,
    ...io,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return io.exited
    },
  }
}

/** Runs a command to its end (for start-up failures and the CLI). */
export const run = (
  command: string,
  args: string[],
  options: { env?: Env; cwd?: string; inheritEnv?: boolean; timeoutMs?: number } = {},
): Promise<Exit & { stdout: string; stderr: string }> => {
  const env = options.inheritEnv ? { ...process.env, ...options.env } : childEnv(options.env ?? {})
  const child = spawn(command, args, { env, cwd: options.cwd ?? APP_DIR, stdio: ['ignore', 'pipe', 'pipe'] })
  const io = watch(child)
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 15_000)
  return io.exited.then((exit) => {
    clearTimeout(timer)
    return { ...exit, stdout: io.stdout(), stderr: io.stderr() }
  })
}

/** Runs `node dist/main.js` expecting it to refuse to start (on a temp database, should it not). */
export const runServerToExit = (env: Env) =>
  run(process.execPath, [MAIN], { env: { PORT: '0', DATABASE_URL: `file:${join(freshDir(), 'todo.db')}`, ...env } })

export interface Mail {
  to: string[]
  /** The `X-Latchkey-Kind` header: `reset-password`, `verify-email`, … (docs/reference/lifecycle.md#mail). */
  kind: string | null
  /** The message as sent, quoted-printable soft breaks and escapes decoded. */
  text: string
}

/** Undoes quoted-printable encoding (nodemailer uses it for long lines such as the link). */
const decodeQuotedPrintable = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))

/** An SMTP server on loopback that keeps every message it receives. */
export const startSmtp = async () => {
  const mails: Mail[] = []
  const waiting = new Set<() => void>()
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // The server's mailer keeps its connections open (a pool): closing drops them after 0.2 s,
    // as a mail server going away does, instead of waiting 30 s for the client to leave.
    closeTimeout: 200,
    onData(stream, session, callback) {
      let raw = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk: string) => {
        raw += chunk
      })
      stream.on('end', () => {
        const kind = /^X-Latchkey-Kind: *(\S+)\r?$/im.exec(raw)?.[1] ?? null
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), kind, text: decodeQuotedPrintable(raw) })
        for (const w of waiting) w()
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** The next mail of `kind` (default: a reset mail) to `to` that arrives after `after` mails were already there. */
    waitFor(to: string, after = 0, timeoutMs = 5_000, kind = 'reset-password'): Promise<Mail> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const mail = mails.slice(after).find((m) => m.to.includes(to) && m.kind === kind)
          if (!mail) return
          waiting.delete(check)
          clearTimeout(timer)
          resolve(mail)
        }
        const timer = setTimeout(() => {
          waiting.delete(check)
          reject(new Error(`no ${kind} mail to ${to} within ${timeoutMs} ms`))
        }, timeoutMs)
        waiting.add(check)
        check()
      })
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/**
 * The fixture of every test that reads the server's mail: the reference server (as
 * {@link startServer}) with a real SMTP server on loopback catching what it sends.
 */
export const startServerWithMail = async (options: StartOptions = {}) => {
  const smtp = await startSmtp()
  try {
    const server = await startServer({ ...options, env: { ...options.env, SMTP_URL: smtp.url } })
    return { server, smtp }
  } catch (err) {
    await smtp.close()
    throw err
  }
}

export interface Reply {
  status: number
  headers: Headers
  /** Parsed JSON when the body is JSON, the text otherwise, `null` when empty. */
  body: unknown
  text: string
}

export interface RequestOptions {
  token?: string
  body?: unknown
  headers?: Record<string, string>
  cookie?: string
}

/** One HTTP request with a JSON body (when given) and an optional bearer token. */
export const request = async (base: string, method: string, path: string, options: RequestOptions = {}): Promise<Reply> => {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token) headers.authorization = `Bearer ${options.token}`
  if (options.cookie) headers.cookie = options.cookie
  let body: string | undefined
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body)
    headers['content-type'] ??= 'application/json'
  }
  const res = await fetch(`${base}${path}`, { method, headers, body, redirect: 'manual' })
  const text = await res.text()
  let parsed: unknown = text === '' ? null : text
  if (/json/.test(res.headers.get('content-type') ?? '') && text !== '') parsed = JSON.parse(text)
  return { status: res.status, headers: res.headers, body: parsed, text }
}

/** `name=value` of a Set-Cookie whose name ends with `name`, or `undefined`. */
export const cookieFrom = (reply: Reply, name: string): string | undefined => {
  const line = reply.headers.getSetCookie().find((c) => c.split('=')[0]?.endsWith(name))
  return line?.split(';')[0]
}

export interface Account {
  email: string
  password: string
  token: string
  userId: string
  /** The refresh cookie as `name=value`. */
  refreshCookie: string
}

/** Signs up a fresh user (a passphrase that is on no common-password list). */
export const signup = async (base: string, name = 'Ada'): Promise<Account> => {
  const email = `${name.toLowerCase()}-${randomUUID().slice(0, 8)}@example.com`
  const password = `plum tractor ${randomUUID().slice(0, 6)} lantern`
  const reply = await request(base, 'POST', '/auth/signup', { body: { name, email, password } })
  if (reply.status !== 201) throw new Error(`signup answered ${reply.status}: ${reply.text}`)
  const body = reply.body as { accessToken: string; user: { id: string } }
  const refreshCookie = cookieFrom(reply, 'refresh_token')
  if (!refreshCookie) throw new Error('signup set no refresh cookie')
  return { email, password, token: body.accessToken, userId: body.user.id, refreshCookie }
}

/**
 * In development without SMTP, the value at the end of the newest `[dev mail] <what> for <to>: …`
 * line (`what`: `email verification link`, `add-credential code`, …), once more than `after` such
 * lines were printed.
 */
export const devMail = async (server: RunningServer, what: string, to: string, after = 0, timeoutMs = 5_000) => {
  const prefix = `[dev mail] ${what} for ${to}: `
  const lines = () =>
    server
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith(prefix))
  const deadline = Date.now() + timeoutMs
  while (lines().length <= after) {
    if (Date.now() > deadline) throw new Error(`no ${what} line for ${to} within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return (lines().at(-1) as string).slice(prefix.length)
}

/** How many `[dev mail] <what> for <to>` lines were printed so far (the `after` of {@link devMail}). */
export const devMailCount = (server: RunningServer, what: string, to: string) =>
  server
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith(`[dev mail] ${what} for ${to}: `)).length

/**
 * In development without SMTP: redeems the verification link printed for `email`, with the
 * account's `password`, so its holder keeps it (docs/reference/lifecycle.md#the-first-proof-of-the-mailbox).
 */
export const verifyByDevMail = async (server: RunningServer, email: string, password: string) => {
  const link = await devMail(server, 'email verification link', email)
  const token = new URL(link).searchParams.get('token') ?? ''
  const reply = await request(server.base, 'POST', '/auth/verify-email', { body: { token, password } })
  if (reply.status !== 204) throw new Error(`verify-email answered ${reply.status}: ${reply.text}`)
}

/**
 * In development without SMTP: turns two-factor sign-in on for a verified account over the API
 * (setup, then enable with a code of the app and the mailed add-credential code); its TOTP (whose
 * current step is now used) and its recovery codes.
 */
export const turnOnTwoFactor = async (server: RunningServer, account: Account) => {
  const before = devMailCount(server, 'add-credential code', account.email)
  const setup = await request(server.base, 'POST', '/auth/two-factor/setup', { token: account.token, body: {} })
  if (setup.status !== 200) throw new Error(`two-factor/setup answered ${setup.status}: ${setup.text}`)
  const totp = OTPAuth.URI.parse((setup.body as { uri: string }).uri) as OTPAuth.TOTP
  const emailCode = await devMail(server, 'add-credential code', account.email, before)
  const enable = await request(server.base, 'POST', '/auth/two-factor/enable', {
    token: account.token,
    body: { code: totp.generate(), emailCode },
  })
  if (enable.status !== 200) throw new Error(`two-factor/enable answered ${enable.status}: ${enable.text}`)
  return { totp, recoveryCodes: (enable.body as { recoveryCodes: string[] }).recoveryCodes }
}

export interface TodoJson {
  id: string
  userId: string
  title: string
  done: boolean
  createdAt: string
}

// The repository's one PostgreSQL probe: the library's tests use it too.
export {
  freshPostgresSchema,
  PG_URL as PG_TEST_URL,
  type PostgresSchema,
} from '../../../packages/auth/test/postgres-probe.js'

/** `null` when PostgreSQL answers at `PG_TEST_URL`, otherwise why not (printed once, so a skip says why). */
export const postgresUnreachable = async (): Promise<string | null> => pgUnreachable
