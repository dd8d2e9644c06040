/**
 * `@latchkey/client/react`: who is signed in, as React state. The client's state is a stable
 * snapshot that changes only when the user does, as `useSyncExternalStore` requires.
 *
 * @example
 * const { user } = useSession(auth)
 * return user ? <p>Signed in as {user.name}</p> : <SignIn />
 */
import { useSyncExternalStore } from 'react'
import type { AuthClient } from './client.js'
import type { AuthState } from './types.js'

export const useSession = (auth: AuthClient): AuthState => useSyncExternalStore(auth.subscribe, auth.getState, auth.getState)
