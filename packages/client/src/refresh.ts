/**
 * One refresh of the session, start to end: the request (in turn with the other tabs), who is
 * signed in after a reload, and what a refused cookie means (machine.ts decides: take another
 * tab's token, wait for it, or sign out). Run by core.ts, once at a time.
 */
import { PEER_WAIT_MS, refreshInTurn, type Tabs } from './cross-tab.js'
import { errorFrom } from './errors.js'
import { afterRefusal, type ClientEvent, type ClientState, inTurn, isSignedIn, peerTokenSince } from './machine.js'
import type { AnswerOf, User } from './types.js'

export interface RefreshContext {
  /** The machine's current state. */
  state: () => ClientState
  dispatch: (event: ClientEvent) => void
  now: () => number
  tabs: Tabs | null
  /** Refreshes waiting for another tab's token or sign-out; woken by the machine's `wake-waiting`. */
  waiting: Set<() => void>
  /** The refresh request (the cookie is the transport's). */
  sendRefresh: () => Promise<Response>
  /** `GET /me` with this token as it is. */
  sendMe: (token: string) => Promise<Response>
  adopt: (result: AnswerOf<'POST /refresh'> & { user?: User | undefined }) => void
}

export const createRefresh = ({ state, dispatch, now, tabs, waiting, sendRefresh, sendMe, adopt }: RefreshContext) => {
  /**
   * The user of `token` when this client does not know it yet (after a reload), asked with the
   * token directly: me() would wait for the very refresh that is asking.
   */
  const whoIs = async (token: string): Promise<User | null> => {
    const known = state().user
    if (known) return known
    const found = await sendMe(token)
    return found.ok ? ((await found.json()) as User) : null
  }

  /** After another tab's token was taken: learns who it is if that tab did not say. */
  const peerTaken = async () => {
    const token = state().token?.value
    if (!state().user && token) {
      const found = await whoIs(token)
      if (found) dispatch({ type: 'user', user: found, forToken: token })
    }
    return state().token !== null
  }

  /** Whether another tab's token arrives within `ms` (after this tab's refresh lost a race to it). */
  const peerToken = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const seen = state().generation
      const done = () => {
        clearTimeout(timeout)
        waiting.delete(done)
        resolve(peerTokenSince(state(), seen))
      }
      const timeout = setTimeout(done, ms)
      waiting.add(done)
    })

  /** The refresh request itself; a refusal (401) is the caller's to settle. */
  const refreshNow = async (): Promise<'ok' | 'refused'> => {
    const response = await sendRefresh()
    if (response.status === 401) return 'refused'
    if (!response.ok) throw await errorFrom(response)
    const body = (await response.json()) as AnswerOf<'POST /refresh'>
    // Who it is (after a reload), asked before the token is taken so that the other tabs hear
    // of both at once.
    adopt({ ...body, user: (await whoIs(body.accessToken)) ?? undefined })
    return 'ok'
  }

  /** One refresh, in turn with the other tabs; `false` (and signed out) when the cookie was refused. */
  const refreshOnce = async (): Promise<boolean> => {
    const seen = state().generation
    const wasSignedIn = isSignedIn(state())
    const outcome = tabs ? await refreshInTurn(tabs, () => inTurn(state(), seen, now()), refreshNow) : await refreshNow()
    if (outcome === 'ok') return true
    if (outcome === 'peer') return peerTaken()
    const next = afterRefusal(state(), { seen, wasSignedIn, crossTab: tabs !== null, alone: outcome === 'refused-alone' })
    if (next === 'take-peer' || (next === 'wait-for-peer' && (await peerToken(PEER_WAIT_MS)))) return peerTaken()
    dispatch({ type: 'signed-out', tell: next !== 'end-quietly' })
    return false
  }

  return refreshOnce
}
