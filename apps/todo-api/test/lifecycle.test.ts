/** Health and graceful shutdown: SIGTERM/SIGINT stop accepting, finish in-flight work, close the database, exit 0. */
import { existsSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { request, signup, startServer, type TodoJson } from './support.js'

/** A keep-alive connection on which a request is written in pieces, and its answer read back. */
const openSocket = (port: number) =>
  new Promise<{ socket: Socket; received: () => string; closed: Promise<void> }>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let data = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      data += chunk
    })
    const closed = new Promise<void>((done) => socket.on('close', () => done()))
    socket.once('error', reject)
    socket.once('connect', () => resolve({ socket, received: () => data, closed }))
  })

const until = async (condition: () => boolean, timeoutMs = 5000) => {
  const end = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('GET /health', () => {
  it('answers 200 {"status":"ok"} while the database answers', async () => {
    const server = await startServer()
    try {
      const reply = await request(server.base, 'GET', '/health')
      expect(reply.status).toBe(200)
      expect(reply.text).toBe('{"status":"ok"}')
    } finally {
      await server.stop()
    }
  })
})

describe('graceful shutdown', () => {
  it('on SIGTERM refuses new connections, completes the in-flight request, closes the database and exits 0', async () => {
    const server = await startServer()
    const ada = await signup(server.base, 'Ada')

    // Headers and half the body now; the rest after the signal.
    const body = JSON.stringify({ title: 'written during shutdown' })
    const half = Math.floor(body.length / 2)
    const { socket, received, closed } = await openSocket(server.port)
    socket.write(
      `POST /todos HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ada.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
    )
    await new Promise((r) => setTimeout(r, 200))

    server.process.kill('SIGTERM')
    await server.waitForOutput(/SIGTERM: shutting down/)
    await expect(fetch(`${server.base}/health`)).rejects.toThrow()
    expect(server.process.exitCode).toBeNull()

    socket.write(body.slice(half))
    await until(() => /\r\n\r\n\{.*\}$/s.test(received()))
    const [head, json] = received().split('\r\n\r\n')
    expect(head?.split('\r\n')[0]).toBe('HTTP/1.1 201 Created')
    expect((JSON.parse(json ?? '') as TodoJson).title).toBe('written during shutdown')

    const started = Date.now()
    const exit = await server.exited
    expect(exit).toEqual({ code: 0, signal: null })
    // The kept-alive connection is closed once idle instead of holding the exit for its timeout.
    expect(Date.now() - started).toBeLessThan(2000)
    await closed
    expect(server.stdout()).toMatch(/^stopped$/m)

    // Closed cleanly: SQLite removed its write-ahead log on close, and the write is there.
    expect(existsSync(`${server.dbPath}-wal`)).toBe(false)
    const db = new Database(server.dbPath, { readonly: true })
    try {
      expect(db.prepare('select title from todos').all()).toEqual([{ title: 'written during shutdown' }])
    } finally {
      db.close()
    }
  })

  it('takes one Ctrl-C that arrives twice (the terminal and `node --watch` both send it) as one: exits 0', async () => {
    const server = await startServer()
    const ada = await signup(server.base, 'Ada')
    // A request in flight holds the shutdown open while the second SIGINT arrives.
    const body = JSON.stringify({ title: 'written between the two signals' })
    const { socket, received } = await openSocket(server.port)
    socket.write(
      `POST /todos HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ada.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 5)}`,
    )
    await new Promise((r) => setTimeout(r, 200))
    server.process.kill('SIGINT')
    await server.waitForOutput(/SIGINT: shutting down/)
    server.process.kill('SIGINT')
    await new Promise((r) => setTimeout(r, 200))
    expect(server.process.exitCode).toBeNull()
    socket.write(body.slice(5))
    await until(() => /\r\n\r\n\{.*\}$/s.test(received()))
    expect(received().split('\r\n')[0]).toBe('HTTP/1.1 201 Created')
    expect(await server.exited).toEqual({ code: 0, signal: null })
    expect(server.stderr()).not.toContain('again')
  })

  it('exits 0 on SIGINT too', async () => {
    const server = await startServer()
    await request(server.base, 'GET', '/health')
    expect(await server.stop('SIGINT')).toEqual({ code: 0, signal: null })
    expect(existsSync(`${server.dbPath}-wal`)).toBe(false)
  })
})
