/** What the passkey routes are given: the route dependencies, with passkeys on. */
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'
import type { PasskeyCore } from './ceremony.js'

export type PasskeyDeps<U extends UserRecord> = Omit<RouteDeps<U>, 'passkeys'> & { passkeys: PasskeyCore }
