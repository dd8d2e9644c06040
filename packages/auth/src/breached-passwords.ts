/**
 * Breached passwords by k-anonymity: the Pwned Passwords range API
 * (https://haveibeenpwned.com/API/v3#SearchingPwnedPasswordsByRange). Only the first five hex
 * characters of the password's SHA-1 leave the server; the service answers every suffix it knows
 * under that prefix as `SUFFIX:COUNT` lines, and the match is made here. `Add-Padding: true` asks
 * it to pad the answer with fake suffixes of count 0, so the answer's size does not tell an
 * observer which prefix was asked. Built on `fetch` and Web Crypto, so it runs on every runtime.
 *
 * The check fails open: when the service does not answer in time, answers an error, or answers
 * something that is no range list, the password is accepted and the caller emits
 * `breach_check.unavailable`. An outage of a third party must not stop people signing up or
 * resetting a password; the common-password list (always checked) still applies.
 */

/** The public service. */
export const PWNED_PASSWORDS_URL = 'https://api.pwnedpasswords.com'

/** Default milliseconds to wait for the whole answer. */
export const BREACH_TIMEOUT_MS = 1500

/** The `breachedPasswords` option of `createAuth`: `true` for the public service with the defaults. */
export interface BreachedPasswordsOptions {
  /** Base URL of a Pwned-Passwords-style range API; `/range/{prefix}` is appended. Default the public service. */
  url?: string
  /** Milliseconds to wait for the answer before accepting the password. Default 1500. */
  timeoutMs?: number
  /** The `fetch` to use (a proxying or instrumented one). Default the global `fetch`. */
  fetch?: typeof fetch
}

/** `breached`: seen in breaches; `unavailable`: the service did not give a usable answer in time. */
export type BreachVerdict = 'breached' | 'clean' | 'unavailable'

/** Checks one (normalised) password. Never throws. */
export type BreachCheck = (password: string) => Promise<BreachVerdict>

const HEX_UPPER = '0123456789ABCDEF'

/** The SHA-1 of the UTF-8 bytes, upper-case hex, as the service lists them. */
export const sha1Hex = async (text: string): Promise<string> => {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-1', new TextEncoder().encode(text)))
  let hex = ''
  for (const byte of digest) hex += (HEX_UPPER[byte >> 4] ?? '') + (HEX_UPPER[byte & 15] ?? '')
  return hex
}

const LINE = /^([0-9A-Fa-f]{35}):(\d+)$/

/**
 * Whether `suffix` appears in a range answer with a count above 0 (padding lines have count 0).
 * `null` when the text holds no range line at all: not an answer of the range API (a proxy's
 * error page), which counts as unavailable.
 */
export const rangeVerdict = (body: string, suffix: string): 'breached' | 'clean' | null => {
  let lines = 0
  for (const raw of body.split('\n')) {
    const m = LINE.exec(raw.trim())
    if (!m) continue
    lines++
    if ((m[1] as string).toUpperCase() === suffix && Number(m[2]) > 0) return 'breached'
  }
  return lines > 0 ? 'clean' : null
}

/** Resolves `breachedPasswords` into a check; throws a `TypeError` naming the bad field. */
export const breachCheck = (option: true | BreachedPasswordsOptions): BreachCheck => {
  const settings = option === true ? {} : option
  const base = settings.url ?? PWNED_PASSWORDS_URL
  if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol))
    throw new TypeError(
      'createAuth: option `breachedPasswords.url` must be an http(s) URL such as https://api.pwnedpasswords.com',
    )
  const timeoutMs = settings.timeoutMs ?? BREACH_TIMEOUT_MS
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new TypeError('createAuth: option `breachedPasswords.timeoutMs` must be a positive number of milliseconds')
  if (settings.fetch !== undefined && typeof settings.fetch !== 'function')
    throw new TypeError('createAuth: option `breachedPasswords.fetch` must be a fetch function')
  const root = base.replace(/\/+$/, '')
  return async (password) => {
    const hash = await sha1Hex(password)
    try {
      // The signal bounds the body's bytes too: a service that sends headers and then stalls is cut off.
      const response = await (settings.fetch ?? fetch)(`${root}/range/${hash.slice(0, 5)}`, {
        headers: { 'Add-Padding': 'true', Accept: 'text/plain' },
        signal: AbortSignal.timeout(timeoutMs),
      })
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined)
        return 'unavailable'
      }
      return rangeVerdict(await response.text(), hash.slice(5)) ?? 'unavailable'
    } catch {
      return 'unavailable'
    }
  }
}
