/**
 * Request hygiene that comes before any route: the body size limit (413) and the JSON-only
 * rule (415), in that order, as the contract ranks them ahead of 401.
 */
import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { every } from 'hono/combine'
import { AuthError } from './errors.js'

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i

/**
 * Refuses bodies over `maxBytes` (default 64 KiB) with 413 and bodies that are not
 * `application/json` with 415. Requests without a body pass.
 *
 * @example
 * app.use('*', jsonBodyGuard())
 */
export const jsonBodyGuard = (maxBytes = 64 * 1024): MiddlewareHandler =>
  every(
    bodyLimit({
      maxSize: maxBytes,
      onError: () => {
        throw new AuthError('payload_too_large', { detail: `Request bodies are limited to ${maxBytes} bytes.` })
      },
    }),
    async function jsonOnly(c, next) {
      if (WITH_BODY.has(c.req.method)) {
        const length = c.req.header('content-length')
        // On the wire (RFC 9112 §6.3) neither Content-Length nor Transfer-Encoding means no body,
        // though the Node adapter still hands every POST a body stream. In-process Requests
        // (app.request) carry no Content-Length: there the body stream itself tells.
        const fromSocket = (c.env as { incoming?: unknown } | undefined)?.incoming !== undefined
        const hasBody =
          length !== undefined
            ? Number(length) > 0
            : fromSocket
              ? c.req.header('transfer-encoding') !== undefined
              : c.req.raw.body !== null
        if (hasBody && !JSON_TYPE.test(c.req.header('content-type') ?? ''))
          throw new AuthError('unsupported_media_type', { detail: 'Request bodies must be application/json.' })
      }
      await next()
    },
  )

/** Reads the JSON body without failing: `undefined` when absent or malformed. Hono caches it for the validator. */
export const peekJson = async (c: Parameters<MiddlewareHandler>[0]): Promise<unknown> => {
  try {
    const text = await c.req.text()
    return text ? JSON.parse(text) : undefined
  } catch {
    return undefined
  }
}
