/**
 * The reference server's Node response (`createServer({ ServerResponse: AppResponse })`, main.ts):
 * the headers the app's first middleware gives every answer (the security headers, and `no-store`
 * on private paths) are handed to Node's `writeHead` in the one object the adapter passes, instead
 * of a `setHeader` call each before the handler. Node writes an object given to `writeHead` in one
 * pass when nothing was set with `setHeader` before; every header set that way first is validated
 * and stored on its own, and the object's are then merged into them one by one. Measured on a plain
 * `node:http` server answering 20 todos: 20–21 µs of CPU per answer with twelve headers set through
 * `setHeader`, 17–19 µs with the same twelve in the `writeHead` object
 * (docs/PERFORMANCE.md#reads-and-writes-what-the-reference-server-adds).
 *
 * The answer's own headers win, as they did over headers set before the handler: a preset header
 * goes in only when the answer does not carry one of that name. A response something set a header
 * on with `setHeader` (a server shutting down sets `Connection: close`), or one whose `writeHead`
 * gets no object, gets the presets through `setHeader` as before. A runtime whose `node:http`
 * ignores the `ServerResponse` option hands the app a response of its own class, and the app then
 * sets the headers itself (`presetHeaders`).
 */
import { type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders, ServerResponse } from 'node:http'

/** Headers laid out once for the loop of every answer: names as sent, lower-cased, and values. */
export interface HeaderList {
  names: readonly string[]
  lower: readonly string[]
  values: readonly string[]
}

export const headerList = (headers: Record<string, string>): HeaderList => ({
  names: Object.keys(headers),
  lower: Object.keys(headers).map((name) => name.toLowerCase()),
  values: Object.values(headers),
})

/** The lower-cased names of headers given to `writeHead`: an object, `[name, value]` pairs or a flat `name, value, …` list. */
const namesOf = (given: Headers | undefined): Set<string> => {
  if (!given) return new Set()
  if (!Array.isArray(given)) return new Set(Object.keys(given).map((name) => name.toLowerCase()))
  const names = given.flatMap((entry, at) => (Array.isArray(entry) ? [entry[0]] : at % 2 === 0 ? [entry] : []))
  return new Set(names.map((name) => String(name).toLowerCase()))
}

const PRESET = Symbol('preset headers')
const SET = Symbol('a header was set before writeHead')

type Headers = OutgoingHttpHeaders | OutgoingHttpHeader[]

export class AppResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  // Both fields exist on every response from its construction, so every response has one shape.
  [PRESET]: HeaderList | null = null;
  [SET] = false

  override setHeader(name: string, value: number | string | readonly string[]): this {
    this[SET] = true
    return super.setHeader(name, value)
  }

  override appendHeader(name: string, value: string | readonly string[]): this {
    this[SET] = true
    return super.appendHeader(name, value)
  }

  override writeHead(statusCode: number, reason?: string | Headers, headers?: Headers): this {
    const preset = this[PRESET]
    const given = typeof reason === 'string' ? headers : reason
    if (!preset)
      return typeof reason === 'string' ? super.writeHead(statusCode, reason, headers) : super.writeHead(statusCode, reason)
    // The answer's own names, in any case: a preset of the same name gives way.
    const own = namesOf(given)
    if (!this[SET] && given && !Array.isArray(given)) {
      const merged: OutgoingHttpHeaders = {}
      for (let i = 0; i < preset.names.length; i++)
        if (!own.has(preset.lower[i] as string)) merged[preset.names[i] as string] = preset.values[i]
      for (const name in given) merged[name] = given[name]
      return typeof reason === 'string' ? super.writeHead(statusCode, reason, merged) : super.writeHead(statusCode, merged)
    }
    // Anything else: the presets through setHeader, as before the handler.
    for (let i = 0; i < preset.names.length; i++) {
      const lower = preset.lower[i] as string
      if (!own.has(lower) && !this.hasHeader(lower)) super.setHeader(preset.names[i] as string, preset.values[i] as string)
    }
    return typeof reason === 'string' ? super.writeHead(statusCode, reason, headers) : super.writeHead(statusCode, reason)
  }
}

/**
 * Gives `outgoing` the headers of `list` for its `writeHead`; `false` when it is not an
 * {@link AppResponse} (the caller then sets them itself).
 */
export const presetHeaders = (outgoing: unknown, list: HeaderList): boolean => {
  if (!(outgoing instanceof AppResponse)) return false
  outgoing[PRESET] = list
  return true
}
