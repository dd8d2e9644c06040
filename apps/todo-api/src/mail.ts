/**
 * The mail hook the app hands to @latchkey/auth (docs/reference/lifecycle.md#mail). What each mail
 * says and the links it carries are in mail-text.ts; this is the delivery: SMTP when `SMTP_URL`
 * is set, each mail with an `X-Latchkey-Kind` header, built and sent on a thread of its own
 * (mail-thread.ts); otherwise one terminal line per mail, outside production only.
 */
import { Worker } from 'node:worker_threads'
import type { AuthMail } from '@latchkey/auth'
import { compose } from './mail-text.js'
import type { MailReply, MailRequest, MailThreadData } from './mail-thread.js'

export interface MailerOptions {
  /** `smtp://user:pass@host:port` or `smtps://…`; `null` prints the link instead. */
  smtpUrl: string | null
  from: string
  /** Base of the link, without a trailing slash. */
  publicUrl: string
  production: boolean
  /** Where the development mail lines go. Default: standard output. */
  print?: (line: string) => void
}

export interface Mailer {
  /** Settles once the mail is sent, or rejects with what stopped it. */
  send(mail: AuthMail): Promise<void>
  close(): void
}

/** Starts the mail thread: mail-thread.js beside this file in dist. */
const startThread = (data: MailThreadData): Worker => {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./mail-thread.js', import.meta.url), { workerData: data })
  // From the sources (the tests, `pnpm dev`) the thread is TypeScript: Node 20 runs none, and a
  // worker does not inherit the `--import tsx` of `pnpm dev`, so the thread is imported through
  // tsx's API, found as `--import tsx` finds it: from the working directory, in this repository.
  const thread = JSON.stringify(new URL('./mail-thread.ts', import.meta.url).href)
  const code = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${thread}, ${thread}))`
  return new Worker(code, { eval: true, workerData: data })
}

const threadMailer = (data: MailThreadData): Mailer => {
  const waiting = new Map<number, { resolve: () => void; reject: (err: Error) => void }>()
  let lastId = 0
  let closed = false
  const failAll = (err: Error) => {
    for (const { reject } of waiting.values()) reject(err)
    waiting.clear()
  }
  const start = (): Worker => {
    const started = startThread(data)
    // An idle thread keeps its pooled connections open but not the process alive.
    started.unref()
    started.on('message', ({ id, failure }: MailReply) => {
      const waiter = waiting.get(id)
      waiting.delete(id)
      if (waiting.size === 0) started.unref()
      if (!failure) return waiter?.resolve()
      waiter?.reject(Object.assign(new Error(failure.message), { name: failure.name, code: failure.code }))
    })
    started.on('error', failAll)
    started.on('exit', () => {
      // A thread that stopped on its own is started anew for the next mail.
      if (thread === started && !closed) thread = null
      failAll(new Error('the mail thread stopped'))
    })
    return started
  }
  // Started now, so the first mail does not wait for the thread to load nodemailer.
  let thread: Worker | null = start()
  return {
    async send(mail) {
      if (closed) throw new Error('the mailer is closed')
      const current = thread ?? start()
      thread = current
      const id = ++lastId
      const sent = new Promise<void>((resolve, reject) => waiting.set(id, { resolve, reject }))
      current.ref()
      try {
        current.postMessage({ id, mail } satisfies MailRequest)
      } catch (err) {
        waiting.delete(id)
        if (waiting.size === 0) current.unref()
        throw err
      }
      return sent
    },
    close() {
      closed = true
      thread?.postMessage({ close: true } satisfies MailRequest)
    },
  }
}

export const createMailer = ({ smtpUrl, from, publicUrl, production, print }: MailerOptions): Mailer => {
  if (smtpUrl) return threadMailer({ smtpUrl, from, publicUrl })
  if (production) throw new Error('createMailer: SMTP_URL is required in production; mail links are never printed there')
  const write = print ?? ((line: string) => console.log(line))
  return {
    async send(mail) {
      write(`[dev mail] ${compose(mail, publicUrl).line}`)
    },
    close: () => {},
  }
}
