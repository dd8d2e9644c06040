/**
 * The mail thread: a `node:worker_threads` worker that owns the pooled SMTP transport and
 * composes, encodes and sends each mail the main thread posts (mail.ts). nodemailer's building of
 * a MIME message is CPU, and every login from a new browser mails a notice: here that work runs
 * beside the event loop that answers requests, not on it (docs/PERFORMANCE.md#measurements-behind-the-code).
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { AuthMail } from '@latchkey/auth'
import nodemailer from 'nodemailer'
import { compose } from './mail-text.js'

/** What the main thread hands the thread when it starts it. */
export interface MailThreadData {
  smtpUrl: string
  from: string
  publicUrl: string
}

/** A mail to send, or the word to close the transport. */
export type MailRequest = { id: number; mail: AuthMail } | { close: true }

/** One reply per mail: sent, or what stopped it (a structured clone keeps no `code` of its own). */
export interface MailReply {
  id: number
  failure?: { name: string; message: string; code?: unknown }
}

const port = parentPort
if (!port) throw new Error('mail-thread.ts runs as a worker thread, started by createMailer (mail.ts)')
const { smtpUrl, from, publicUrl } = workerData as MailThreadData

// Pooled: up to five connections, each kept for up to 100 mails, so a mail costs its MAIL,
// RCPT and DATA rather than a new connection, greeting and EHLO (and TLS and AUTH where the
// server asks for them). Every login from a new browser mails a notice, and a fresh connection
// per mail was the largest part of a login's own CPU (docs/PERFORMANCE.md#the-login-measured).
// No mail here has attachments or embedded links to load: with file and URL access off,
// nodemailer skips looking for them in every mail (~20 % of its CPU per mail, and nothing a
// mail's content could make it read).
const transport = nodemailer.createTransport({ url: smtpUrl, pool: true, disableFileAccess: true, disableUrlAccess: true })

let inFlight = 0
let closing = false

port.on('message', async (request: MailRequest) => {
  if ('close' in request) {
    closing = true
    transport.close()
    if (inFlight === 0) port.close()
    return
  }
  const { id, mail } = request
  inFlight++
  let reply: MailReply
  try {
    const { subject, text } = compose(mail, publicUrl)
    await transport.sendMail({ from, to: mail.to, subject, text, headers: { 'X-Latchkey-Kind': mail.kind } })
    reply = { id }
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err))
    reply = { id, failure: { name: e.name, message: e.message, code: (e as { code?: unknown }).code } }
  }
  inFlight--
  port.postMessage(reply)
  if (closing && inFlight === 0) port.close()
})
