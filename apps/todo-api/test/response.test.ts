/**
 * The reference server's Node response (src/response.ts) hands the preset headers to writeHead in
 * one object: every way an answer can be written still carries each preset exactly once, unless
 * the answer has its own header of that name, which wins; a response without presets is Node's.
 */
import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppResponse, headerList, presetHeaders } from '../src/response.js'

const PRESETS = headerList({ 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' })

/** How each path writes its answer. */
const WRITERS: Record<string, (res: ServerResponse) => void> = {
  '/object': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('a'),
  '/own-lower': (res) => res.writeHead(200, { 'cache-control': 'max-age=60' }).end('a'),
  '/own-cased': (res) => res.writeHead(200, { 'Referrer-Policy': 'origin' }).end('a'),
  '/own-shouting': (res) => res.writeHead(200, { 'X-CONTENT-TYPE-OPTIONS': 'nosniff' }).end('a'),
  '/reason': (res) => res.writeHead(201, 'Made', { 'content-type': 'text/plain' }).end('a'),
  '/set-before': (res) => {
    res.setHeader('Connection', 'close')
    res.setHeader('Cache-Control', 'private')
    res.writeHead(200, { 'content-type': 'text/plain' }).end('a')
  },
  '/array': (res) => res.writeHead(200, ['content-type', 'text/plain', 'referrer-policy', 'same-origin']).end('a'),
  '/implicit': (res) => res.end('a'),
  '/none': (res) => res.writeHead(204).end(),
}

let base = ''
const server = createServer({ ServerResponse: AppResponse }, (req, res) => {
  const path = req.url ?? ''
  if (path !== '/no-presets') expect(presetHeaders(res, PRESETS)).toBe(true)
  ;(WRITERS[path] ?? WRITERS['/object'])?.(res)
})

/** The raw header lines of an answer, lower-cased name to every value sent under it. */
const headersOf = (path: string) =>
  new Promise<{ status: number; headers: Map<string, string[]> }>((resolve, reject) => {
    get(`${base}${path}`, (res: IncomingMessage) => {
      const headers = new Map<string, string[]>()
      for (let i = 0; i < res.rawHeaders.length; i += 2) {
        const name = (res.rawHeaders[i] as string).toLowerCase()
        headers.set(name, [...(headers.get(name) ?? []), res.rawHeaders[i + 1] as string])
      }
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers }))
    }).on('error', reject)
  })

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('the presets a response hands to writeHead', () => {
  it.each([
    ['/object', {}],
    ['/own-lower', { 'cache-control': 'max-age=60' }],
    ['/own-cased', { 'referrer-policy': 'origin' }],
    ['/own-shouting', {}],
    ['/reason', {}],
    ['/set-before', { 'cache-control': 'private' }],
    ['/array', { 'referrer-policy': 'same-origin' }],
    ['/implicit', {}],
    ['/none', {}],
  ] as const)('%s: every preset once, the answer’s own header wins', async (path, own: Record<string, string>) => {
    const { headers } = await headersOf(path)
    const expected = {
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
      ...own,
    }
    for (const [name, value] of Object.entries(expected)) expect(headers.get(name), name).toEqual([value])
  })

  it('writes the status line and reason as given', async () => {
    expect((await headersOf('/reason')).status).toBe(201)
  })

  it('leaves a response without presets as Node writes it', async () => {
    const { headers } = await headersOf('/no-presets')
    expect(headers.get('x-content-type-options')).toBeUndefined()
    expect(headers.get('content-type')).toEqual(['text/plain'])
  })

  it('keeps the presets’ names as written (the case on the wire)', async () => {
    const raw = await new Promise<string[]>((resolve) => get(`${base}/object`, (res) => resolve(res.rawHeaders)))
    expect(raw).toEqual(expect.arrayContaining(['X-Content-Type-Options', 'Referrer-Policy', 'Cache-Control']))
  })

  it('is refused by presetHeaders for a response of another class (the caller sets the headers itself)', () => {
    expect(presetHeaders({}, PRESETS)).toBe(false)
    expect(presetHeaders(undefined, PRESETS)).toBe(false)
  })
})
