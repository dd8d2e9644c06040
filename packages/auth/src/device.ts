/**
 * The device cookie: one random id per browser, set on every answer of the sign-in routes (signup,
 * login's 200 and two-factor 202, two-factor verify, passkey and email sign-in). It identifies a
 * browser the account has signed in from before, without fingerprinting: a sign-in from a browser
 * the account has not used mails a `new-sign-in` notice, and a known browser's failed logins count
 * on their own limit, so strangers cannot lock its owner out (docs/guide/account-protection.md).
 *
 * `__Host-device; Secure; Path=/` where cookies are secure (a sibling host can neither plant nor
 * shadow a `__Host-` cookie), `device; Path=<cookiePath>` over plain http (development, where any
 * host can set any cookie). Both `HttpOnly; SameSite=Lax; Max-Age=<one year>`. The value is 128
 * random bits, base64url, and nothing else: the id's secrecy is what proves the browser, and the
 * store's record of it (its SHA-256, per account) is what makes it known. It carries no MAC, so
 * no key rotation can forget a device (docs/guide/rotating-keys.md).
 *
 * A request may carry several device cookies: a previous release's `__Secure-device`
 * (`<id>.<mac>`, Path=<cookiePath>, still read, its MAC ignored), or cookies a sibling host
 * planted. It is the browser of any one of them the account knows; but the id its answer sets,
 * and records at a sign-in, is only ever the browser's own (its one cookie of the current name)
 * or a new one: an id a sibling could have planted never becomes known to an account by sitting
 * beside the real one.
 */
import type { Context } from 'hono'
import { setCookie } from 'hono/cookie'
import { type ClientAddress, cookieValues, requestFacts } from './credentials.js'
import type { Notifier } from './notify.js'
import { tokenHash } from './opaque-token.js'
import type { Store, UserRecord } from './store/types.js'
import { base64url, randomBytes } from './web.js'

const NAME = 'device'
/** Where cookies were Secure, releases before the `__Host-` cookie set this one (Path=<cookiePath>). */
const PREVIOUS_SECURE_NAME = `__Secure-${NAME}`
const YEAR_SECONDS = 365 * 24 * 60 * 60

/** A device the account has not signed in from for this long is forgotten by the sweep. */
export const DEVICE_MEMORY_MS = YEAR_SECONDS * 1000

/** The most devices remembered per account; a new one beyond it forgets the least recently seen. */
export const DEVICES_PER_ACCOUNT = 50

/** The most device cookies of one request that are looked up (a browser holds one, or two across the upgrade). */
const MAX_CARRIED = 4

/** An id, alone or as a previous release's `<id>.<mac>` (the MAC no longer counts). */
const VALUE = /^([A-Za-z0-9_-]{22})(?:\.[A-Za-z0-9_-]{43})?$/

/** The browser a request comes from. */
export interface Device {
  /** SHA-256 of the id its answer carries (the browser's own, or a new one): what a sign-in records. */
  hash: string
  /** `true` when the request carried a well-formed device cookie. */
  presented: boolean
  /** SHA-256 of every id its device cookies carry (its own first; at most four): it is the browser of any one an account knows. */
  carried: string[]
}

export interface DeviceCoreDeps<U extends UserRecord> {
  /** Secure cookies: `__Host-device`, Path=/. */
  secure: boolean
  /** Where cookies are not secure, the device cookie's path (the auth routes'). */
  path: string
  store: Store<U>
  notify: Notifier
  clientAddress: ClientAddress
  now: () => Date
}

export type DeviceCore = ReturnType<typeof deviceCore>

export const deviceCore = <U extends UserRecord>(deps: DeviceCoreDeps<U>) => {
  const name = deps.secure ? `__Host-${NAME}` : NAME
  const requests = new WeakMap<Context, { id: string; device: Device }>()
  const idsOf = (c: Context, cookie: string) => cookieValues(c, cookie).flatMap((value) => VALUE.exec(value)?.[1] ?? [])

  /** The request's ids, read once: the one its answer sets, and the device. */
  const read = (c: Context) => {
    let known = requests.get(c)
    if (!known) {
      const current = idsOf(c, name)
      // Several of the current name (a client that is no browser): none is the browser's own.
      const own = current.length === 1 ? (current[0] as string) : null
      const previous = deps.secure ? idsOf(c, PREVIOUS_SECURE_NAME) : []
      const carried = [...new Set([...current, ...previous])].slice(0, MAX_CARRIED)
      const id = own ?? base64url(randomBytes(16))
      known = { id, device: { hash: tokenHash(id), presented: carried.length > 0, carried: carried.map(tokenHash) } }
      requests.set(c, known)
    }
    return known
  }

  /** The first id of `hashes` the account knows; each is looked up, so the work does not depend on which. */
  const firstKnown = async (userId: string, hashes: readonly string[]): Promise<string | null> => {
    let found: string | null = null
    for (const hash of hashes) if ((await deps.store.knowsDevice(userId, hash)) && found === null) found = hash
    return found
  }

  return {
    /** The cookie's name as the browser sends it. */
    name,

    /** The request's device (the same for the whole request). */
    of: (c: Context): Device => read(c).device,

    /**
     * The hash of a device cookie of this request that the account `userId` has signed in with
     * (its own cookie first), or `null`: the request is that known browser. Every carried id is
     * looked up, also for an account that knows none or for no account (`''`).
     */
    knownTo: (c: Context, userId: string): Promise<string | null> => firstKnown(userId, read(c).device.carried),

    /** Sets the device cookie on the answer, again for a year. */
    set(c: Context) {
      setCookie(c, NAME, read(c).id, {
        httpOnly: true,
        sameSite: 'Lax',
        maxAge: YEAR_SECONDS,
        ...(deps.secure ? { path: '/', secure: true, prefix: 'host' as const } : { path: deps.path }),
      })
    },

    /**
     * A sign-in succeeded on this request: the device becomes (or stays) known to the account,
     * and when it was new and `notice` is set, the account's address gets a `new-sign-in` mail and
     * `onEvent` a `login.new_device`. Signup passes `notice: false`: its device becomes known quietly.
     * A browser new under its own id but carrying another id the account knows (a previous
     * release's cookie) is that known browser: its own id is recorded quietly.
     */
    async signedIn(c: Context, user: { id: string; email: string }, sessionId: string, { notice }: { notice: boolean }) {
      const at = deps.now()
      const { device } = read(c)
      const added = await deps.store.rememberDevice({
        userId: user.id,
        deviceHash: device.hash,
        now: at,
        keep: DEVICES_PER_ACCOUNT,
      })
      if (!added || !notice) return
      if (
        await firstKnown(
          user.id,
          device.carried.filter((hash) => hash !== device.hash),
        )
      )
        return
      const { ip, userAgent } = requestFacts(c, deps.clientAddress)
      deps.notify.mail({ kind: 'new-sign-in', to: user.email, at: at.toISOString(), ip, userAgent })
      deps.notify.event(c, { type: 'login.new_device', userId: user.id, sessionId })
    },
  }
}
