/**
 * Request hygiene that comes before any route: the body size limit (413) and the JSON-only
 * rule (415), in that order, ahead of 401 (docs/reference/conventions.md#which-error-wins).
 */
import type { Context, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { AuthError } from './errors.js'

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
/** Whether a request of `method` may carry a body, so the guard below may answer it 413 or 415. */
export const mayCarryBody = (method: string): boolean => WITH_BODY.has(method.toUpperCase())
const JSON_TYPE = /^application\/json\s*(;|$)/i

/** A request that came over a socket through the Node adapter, not an in-process `app.request()`. */
const fromSocket = (c: Context): boolean => (c.env as { incoming?: unknown } | undefined)?.incoming !== undefined

/**
 * Refuses bodies over `maxBytes` (default 64 KiB) with 413 and bodies that are not
 * `application/json` with 415. Requests without a body pass.
 *
 * @example
 * app.use('*', jsonBodyGuard())
 */
export const jsonBodyGuard = (maxBytes = 64 * 1024): MiddlewareHandler => {
  const tooLarge = () => {
    throw new AuthError('payload_too_large', { detail: `Request bodies are limited to ${maxBytes} bytes.` })
  }
  const limit = bodyLimit({ maxSize: maxBytes, onError: tooLarge })
  /**
   * Whether the request carries a body, by its headers; `undefined` when only its bytes can tell.
   * On the wire (RFC 9112 §6.3) neither Content-Length nor Transfer-Encoding means no body, though
   * the Node adapter and Deno.serve still hand every POST a body stream. In-process Requests
   * (app.request) carry no Content-Length either.
   */
  const bodyByHeaders = (c: Context): boolean | undefined => {
    if (!WITH_BODY.has(c.req.method)) return false
    const length = c.req.header('content-length')
    if (length !== undefined) return Number(length) > 0
    if (c.req.header('transfer-encoding') !== undefined) return true
    return fromSocket(c) || c.req.raw.body === null ? false : undefined
  }
  const jsonOnly = (c: Context, hasBody: boolean) => {
    if (hasBody && !JSON_TYPE.test(c.req.header('content-type') ?? ''))
      throw new AuthError('unsupported_media_type', { detail: 'Request bodies must be application/json.' })
  }
  return async function jsonBodyGuard(c, next) {
    // The Node adapter never gives GET or HEAD a body: nothing to read, on every read. A body
    // declared over the limit is still refused, from the socket's own headers (no web Request).
    const socket = fromSocket(c)
    if (socket && (c.req.method === 'GET' || c.req.method === 'HEAD')) {
      const length = (c.env as { incoming: { headers: Record<string, string | undefined> } }).incoming.headers['content-length']
      if (length !== undefined && Number.parseInt(length, 10) > maxBytes) tooLarge()
      return next()
    }
    // From the socket, without Transfer-Encoding, Content-Length is the exact size of the body
    // and its absence means no body (RFC 9112 §6.3; Node's parser holds the client to it). The
    // headers decide, then: asking the Node adapter for the body stream would build a whole web
    // Request for every GET, the largest cost of a guarded read (pnpm bench).
    if (socket && c.req.header('transfer-encoding') === undefined) {
      const length = c.req.header('content-length')
      if (length !== undefined && Number.parseInt(length, 10) > maxBytes) tooLarge()
      jsonOnly(c, bodyByHeaders(c) === true)
      return next()
    }
    return limit(c, async () => {
      // When the headers cannot tell, the bytes do: bodyLimit has read them already, so a clone
      // costs a copy of at most `maxBytes`.
      jsonOnly(c, bodyByHeaders(c) ?? (await c.req.raw.clone().arrayBuffer()).byteLength > 0)
      await next()
    })
  }
}
