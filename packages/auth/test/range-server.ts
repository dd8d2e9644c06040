/**
 * A Pwned-Passwords range API on loopback for the breached-password tests (the machine that runs
 * them has no internet): `GET /range/{prefix}` answers `SUFFIX:COUNT` lines, padded with
 * count-0 lines when the request says `Add-Padding: true`, as the public service does. Its data is
 * a real list of breached passwords: the common-password list the library ships (every entry of
 * it is a password seen in breaches), plus any the test names. Every request is recorded (path and
 * headers) so tests can see what left the server. Also: a service that stalls mid-answer, and one
 * that answers 500.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { commonPasswords } from '../src/password.js'

export interface RecordedRequest {
  method: string
  url: string
  headers: IncomingHttpHeaders
}

export interface RangeService {
  /** Base URL (`http://127.0.0.1:<port>`), as `breachedPasswords.url` takes it. */
  url: string
  requests: RecordedRequest[]
  close(): Promise<void>
}

/** Lines a padded answer has at least (the public service pads to between 800 and 1,000). */
const PADDED_TO = 800

const sha1 = (text: string) => createHash('sha1').update(text, 'utf8').digest('hex').toUpperCase()

const listen = async (handle: (res: ServerResponse, prefix: string | null, headers: IncomingHttpHeaders) => void) => {
  const requests: RecordedRequest[] = []
  const open = new Set<ServerResponse>()
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers })
    open.add(res)
    res.on('close', () => open.delete(res))
    const prefix = /^\/range\/([0-9A-Fa-f]{5})$/.exec(req.url ?? '')?.[1]?.toUpperCase() ?? null
    handle(res, prefix, req.headers)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * The range API over the shipped common-password list (each entry counted by its rank: the most
 * common has the highest count) and `extra` passwords (exact strings, counted 1).
 */
export const startRangeServer = async (extra: readonly string[] = []): Promise<RangeService> => {
  const ranked = [...(await commonPasswords())]
  const byPrefix = new Map<string, Map<string, number>>()
  const add = (password: string, count: number) => {
    const hash = sha1(password)
    const prefix = hash.slice(0, 5)
    const bucket = byPrefix.get(prefix) ?? new Map<string, number>()
    byPrefix.set(prefix, bucket)
    bucket.set(hash.slice(5), (bucket.get(hash.slice(5)) ?? 0) + count)
  }
  for (const [rank, password] of ranked.entries()) add(password, ranked.length - rank)
  for (const password of extra) add(password, 1)

  return listen((res, prefix, headers) => {
    if (prefix === null) {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end('The hash prefix was not in a valid format')
      return
    }
    const lines = [...(byPrefix.get(prefix) ?? new Map<string, number>())].map(([suffix, count]) => `${suffix}:${count}`)
    if (headers['add-padding'] === 'true')
      while (lines.length < PADDED_TO) lines.push(`${randomBytes(18).toString('hex').slice(0, 35).toUpperCase()}:0`)
    // The service answers in suffix order; padding mixed in among the real lines.
    lines.sort()
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end(lines.join('\r\n'))
  })
}

/** A service that sends its headers and one line, then never finishes the answer. */
export const startStallingServer = (): Promise<RangeService> =>
  listen((res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' })
    res.write('0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n')
  })

/** A service that answers every request with 500. */
export const startFailingServer = (): Promise<RangeService> =>
  listen((res) => {
    res.writeHead(500, { 'Content-Type': 'text/plain' }).end('internal error')
  })
