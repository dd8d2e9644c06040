/**
 * The device cookie: one random id per browser, signed, set on every successful answer of the
 * sign-in routes (signup, login's 200 and two-factor 202, two-factor verify). It identifies a
 * browser the account has signed in from before, without fingerprinting: a sign-in from a browser
 * the account has not used mails a `new-sign-in` notice, and a known browser's failed logins count
 * on their own limit, so strangers cannot lock its owner out (docs/guide/account-protection.md).
 *
 * `HttpOnly; SameSite=Lax; Path=<cookiePath>; Max-Age=<one year>`, `Secure` with the `__Secure-`
 * prefix where the refresh cookie is. The value is `<id>.<mac>`: 128 random bits and their
 * HMAC-SHA-256 under a key derived from the signing secret (the first secret signs, every listed
 * one verifies, as for access tokens). A value whose MAC does not verify is no device: the
 * request gets a fresh id. The store keeps only the id's SHA-256.
 */
import type { Context } from 'hono'
import { setCookie } from 'hono/cookie'
import { type ClientAddress, requestFacts, singleCookie } from './credentials.js'
import type { Notifier } from './notify.js'
import { tokenHash } from './opaque-token.js'
import type { Store, UserRecord } from './store/types.js'
import { base64url, randomBytes, secretsMac } from './web.js'

const NAME = 'device'
const YEAR_SECONDS = 365 * 24 * 60 * 60

/** A device the account has not signed in from for this long is forgotten by the sweep. */
export const DEVICE_MEMORY_MS = YEAR_SECONDS * 1000

/** The most devices remembered per account; a new one beyond it forgets the least recently seen. */
export const DEVICES_PER_ACCOUNT = 50

const ID = /^[A-Za-z0-9_-]{22}$/

/** The browser a request comes from. */
export interface Device {
  /** SHA-256 of the id: what the store keeps. */
  hash: string
  /** `true` when the request carried a device cookie whose signature holds. */
  presented: boolean
}

export interface DeviceCoreDeps<U extends UserRecord> {
  /** The signing secrets, the first signs. */
  secrets: readonly string[]
  secure: boolean
  path: string
  store: Store<U>
  notify: Notifier
  clientAddress: ClientAddress
  now: () => Date
}

export type DeviceCore = ReturnType<typeof deviceCore>

export const deviceCore = <U extends UserRecord>(deps: DeviceCoreDeps<U>) => {
  // Derived from the signing secrets, so a device MAC is never a token's.
  const macs = secretsMac(deps.secrets, 'latchkey device cookie v1')
  const name = deps.secure ? `__Secure-${NAME}` : NAME
  const ids = new WeakMap<Context, { id: string; device: Device }>()

  /** The id a presented value carries when one of the keys signed it; otherwise `null`. */
  const verified = (value: string | null | undefined): string | null => {
    if (!value) return null
    const dot = value.indexOf('.')
    const id = value.slice(0, dot)
    if (dot === -1 || !ID.test(id)) return null
    const mac = value.slice(dot + 1)
    return macs.verify(id, mac) ? id : null
  }

  const read = (c: Context) => {
    let known = ids.get(c)
    if (!known) {
      const presented = verified(singleCookie(c, name))
      const id = presented ?? base64url(randomBytes(16))
      known = { id, device: { hash: tokenHash(id), presented: presented !== null } }
      ids.set(c, known)
    }
    return known
  }

  return {
    /** The cookie's name as the browser sends it. */
    name,

    /** The request's device: the id its cookie carries when the signature holds, else a fresh one (the same for the whole request). */
    of: (c: Context): Device => read(c).device,

    /** Sets the device cookie on the answer (again for a year, signed with the current key). */
    set(c: Context) {
      const { id } = read(c)
      setCookie(c, NAME, `${id}.${macs.sign(id)}`, {
        path: deps.path,
        httpOnly: true,
        sameSite: 'Lax',
        maxAge: YEAR_SECONDS,
        ...(deps.secure ? { secure: true, prefix: 'secure' as const } : {}),
      })
    },

    /**
     * A sign-in succeeded on this request: the device becomes (or stays) known to the account,
     * and when it was new and `notice` is set, the account's address gets a `new-sign-in` mail and
     * `onEvent` a `login.new_device`. Signup passes `notice: false`: its device becomes known quietly.
     */
    async signedIn(c: Context, user: { id: string; email: string }, sessionId: string, { notice }: { notice: boolean }) {
      const at = deps.now()
      const added = await deps.store.rememberDevice({
        userId: user.id,
        deviceHash: read(c).device.hash,
        now: at,
        keep: DEVICES_PER_ACCOUNT,
      })
      if (!added || !notice) return
      const { ip, userAgent } = requestFacts(c, deps.clientAddress)
      deps.notify.mail({ kind: 'new-sign-in', to: user.email, at: at.toISOString(), ip, userAgent })
      deps.notify.event(c, { type: 'login.new_device', userId: user.id, sessionId })
    },
  }
}
