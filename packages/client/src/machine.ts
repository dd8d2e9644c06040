/**
 * The client's session as a state machine, with pure transitions: what the client holds (an
 * access token until t, who is signed in) and what it is doing (refreshing, signing out, asking
 * for a step-up). An event gives the next state and the effects to run; core.ts runs them (the
 * timer, the requests, the tabs' channel, the listeners). Nothing here calls `fetch`, reads a
 * clock or keeps a variable: the time comes with the event that needs it.
 */
import type { CrossTabMessage } from './cross-tab.js'
import type { ReauthenticationRequiredError } from './errors.js'
import type { AuthState, User } from './types.js'

/** An access token in memory: sent until `expiresAt` (epoch ms), refreshed from `refreshAt`. */
export interface HeldToken {
  value: string
  expiresAt: number
  refreshAt: number
}

/**
 * What the client is busy with. A refresh under way decides for every caller; a sign-out waits
 * for it (`refreshing-then-signing-out`) so that the session it renewed is the one that ends, and
 * while signing out no new refresh begins (its cookie is not to be spent again).
 */
export type Activity = 'idle' | 'refreshing' | 'signing-out' | 'refreshing-then-signing-out'

export interface ClientState {
  token: HeldToken | null
  /** Who is signed in, once known (after a reload, the token comes before the user). */
  user: User | null
  /** The snapshot a UI renders: a new object only when the user changes (`useSyncExternalStore`). */
  view: AuthState
  activity: Activity
  /** Reauthentication required: the app is being asked for a proof, and every refused request waits for it. */
  steppingUp: boolean
  /** Counts the tokens taken and the sign-outs, here or in another tab: a refresh that waited sees whether one came. */
  generation: number
  /** The generation of the last sign-out. */
  signedOutAt: number
}

export const initialState: ClientState = {
  token: null,
  user: null,
  view: { user: null },
  activity: 'idle',
  steppingUp: false,
  generation: 0,
  signedOutAt: 0,
}

export type ClientEvent =
  /** A token taken from an answer of this client (`self`) or from another tab (`peer`); `now` is when. */
  | { type: 'token'; token: string; expiresAt: number; user?: User | null; from: 'self' | 'peer'; now: number }
  /** Who is signed in, learned from `/me`; with `forToken`, only if that token is still held and no user is known. */
  | { type: 'user'; user: User; forToken?: string }
  /** The session ended here; `tell`: the other tabs are told. */
  | { type: 'signed-out'; tell: boolean }
  /** Another tab said the session ended. */
  | { type: 'peer-signed-out' }
  | { type: 'refresh-asked' }
  | { type: 'refresh-settled' }
  | { type: 'sign-out-asked' }
  /** The sign-out's request is answered (or failed): the session is over either way. */
  | { type: 'sign-out-settled' }
  /** A request was refused with `reauthentication-required`, and the app answers such refusals. */
  | { type: 'step-up-asked'; error: ReauthenticationRequiredError }
  | { type: 'step-up-settled' }

export type Effect =
  /** (Re)starts the refresh timer: `inMs` from now, ahead of the token's expiry. */
  | { type: 'schedule-refresh'; inMs: number }
  | { type: 'cancel-refresh' }
  /** Says something to the other tabs (core.ts adds which API it is about). */
  | { type: 'tell'; message: CrossTabMessage }
  /** The view changed: tell the listeners. */
  | { type: 'publish' }
  /** Wakes a refresh that waits for another tab's token or sign-out. */
  | { type: 'wake-waiting' }
  /** Sends a refresh; the callers that ask meanwhile share its outcome. */
  | { type: 'start-refresh' }
  /** Asks the app for a proof; the requests refused meanwhile share its outcome. */
  | { type: 'start-step-up'; error: ReauthenticationRequiredError }

export interface Step {
  state: ClientState
  effects: Effect[]
}

export interface MachineSettings {
  /** Refresh this long before expiry (at most half a token's life). */
  skewMs: number
}

/** The view of `user`: the same object while the user is the same (by value). */
const viewOf = (state: ClientState, user: User | null): AuthState =>
  JSON.stringify(state.view.user) === JSON.stringify(user) ? state.view : { user }

/** The session's data set to `token` and `user`, the view kept in step; `publish` when it changed. */
const hold = (state: ClientState, token: HeldToken | null, user: User | null, signedOut: boolean): Step => {
  const generation = state.generation + 1
  const view = viewOf(state, user)
  const next = { ...state, token, user, view, generation, signedOutAt: signedOut ? generation : state.signedOutAt }
  return { state: next, effects: view === state.view ? [] : [{ type: 'publish' }] }
}

const signOut = (state: ClientState, tell: boolean): Step => {
  const { state: next, effects } = hold(state, null, null, true)
  const told: Effect[] = tell ? [{ type: 'tell', message: { type: 'signed-out' } }] : []
  return { state: next, effects: [{ type: 'cancel-refresh' }, ...told, ...effects, { type: 'wake-waiting' }] }
}

const stay = (state: ClientState, effects: Effect[] = []): Step => ({ state, effects })

export const transition = (state: ClientState, event: ClientEvent, settings: MachineSettings): Step => {
  switch (event.type) {
    case 'token': {
      // At most half a token's life ahead: a token is never "about to expire" as soon as it arrives.
      const lifetime = Math.max(0, event.expiresAt - event.now)
      const skew = Math.min(settings.skewMs, lifetime / 2)
      const token = { value: event.token, expiresAt: event.expiresAt, refreshAt: event.expiresAt - skew }
      const { state: next, effects } = hold(state, token, event.user || state.user, false)
      const told: Effect[] =
        event.from === 'self'
          ? [{ type: 'tell', message: { type: 'token', accessToken: event.token, expiresIn: lifetime / 1000, user: next.user } }]
          : []
      return {
        state: next,
        effects: [{ type: 'schedule-refresh', inMs: lifetime - skew }, ...told, ...effects, { type: 'wake-waiting' }],
      }
    }
    case 'user': {
      if (event.forToken !== undefined && (state.token?.value !== event.forToken || state.user)) return stay(state)
      const view = viewOf(state, event.user)
      return stay({ ...state, user: event.user, view }, view === state.view ? [] : [{ type: 'publish' }])
    }
    case 'signed-out':
      return signOut(state, event.tell)
    case 'peer-signed-out':
      return state.token !== null || state.user !== null ? signOut(state, false) : stay(state, [{ type: 'wake-waiting' }])
    case 'refresh-asked':
      // Refreshing: join the refresh under way. Signing out: no new refresh, the answer is `false`.
      return state.activity === 'idle' ? stay({ ...state, activity: 'refreshing' }, [{ type: 'start-refresh' }]) : stay(state)
    case 'refresh-settled':
      if (state.activity === 'refreshing') return stay({ ...state, activity: 'idle' })
      if (state.activity === 'refreshing-then-signing-out') return stay({ ...state, activity: 'signing-out' })
      return stay(state)
    case 'sign-out-asked':
      if (state.activity === 'idle') return stay({ ...state, activity: 'signing-out' })
      if (state.activity === 'refreshing') return stay({ ...state, activity: 'refreshing-then-signing-out' })
      return stay(state)
    case 'sign-out-settled': {
      const activity: Activity =
        state.activity === 'signing-out'
          ? 'idle'
          : state.activity === 'refreshing-then-signing-out'
            ? 'refreshing'
            : state.activity
      return signOut({ ...state, activity }, true)
    }
    case 'step-up-asked':
      return state.steppingUp
        ? stay(state)
        : stay({ ...state, steppingUp: true }, [{ type: 'start-step-up', error: event.error }])
    case 'step-up-settled':
      return stay({ ...state, steppingUp: false })
  }
}

/** Whether a refresh is under way (its outcome decides for every caller). */
export const isRefreshing = (state: ClientState): boolean =>
  state.activity === 'refreshing' || state.activity === 'refreshing-then-signing-out'

/** Whether the client holds a session: a token, or a user whose token is gone. */
export const isSignedIn = (state: ClientState): boolean => state.token !== null || state.user !== null

/**
 * What `getAccessToken` does now: use the token held, answer `null` (no session, and no cookie to
 * try: a client that keeps its own cookie knows), or refresh. A refresh under way decides for
 * every caller (its token, or nobody): `refresh` joins it.
 */
export const tokenPlan = (state: ClientState, now: number, mayHaveCookie: boolean): 'use' | 'none' | 'refresh' => {
  if (isRefreshing(state)) return 'refresh'
  if (state.token && now < state.token.refreshAt) return 'use'
  if (!isSignedIn(state) && !mayHaveCookie) return 'none'
  return 'refresh'
}

/**
 * The token that names the session for `POST /logout`, while it has not expired; an expired one
 * would decide the answer (401) before the cookie is read (docs/reference/endpoints.md#logout).
 */
export const logoutToken = (state: ClientState, now: number): string | null =>
  state.token !== null && now < state.token.expiresAt ? state.token.value : null

/** Whether another tab's token came since generation `seen`. */
export const peerTokenSince = (state: ClientState, seen: number): boolean => state.generation !== seen && state.token !== null

/**
 * Cross-tab, once this tab holds the refresh lock: take the token another tab got meanwhile
 * (`peer`), give up when another tab signed out meanwhile (`refused`: its cookie is gone), or send
 * the refresh (`ask`).
 */
export const inTurn = (state: ClientState, seen: number, now: number): 'peer' | 'refused' | 'ask' => {
  if (state.generation !== seen && state.token !== null && now < state.token.refreshAt) return 'peer'
  if (state.signedOutAt > seen && state.token === null) return 'refused'
  return 'ask'
}

/**
 * After the server refused the cookie. Alone, the session is over (`end`, and the other tabs are
 * told). With other tabs, another tab may have rotated the cookie under this request (a race the
 * server refuses quietly, inside its grace window): its token settles it (`take-peer`), or is
 * waited for (`wait-for-peer`) unless no other tab waits for the lock (`alone`: no token is
 * coming). A tab that was not signed in (a first visit, after a sign-out), or one another tab
 * signed out meanwhile, ends quietly: its refusal is not news to the others.
 */
export const afterRefusal = (
  state: ClientState,
  at: { seen: number; wasSignedIn: boolean; crossTab: boolean; alone: boolean },
): 'take-peer' | 'wait-for-peer' | 'end-quietly' | 'end' => {
  if (!at.crossTab) return 'end'
  if (peerTokenSince(state, at.seen)) return 'take-peer'
  if (!at.wasSignedIn || state.signedOutAt > at.seen) return 'end-quietly'
  return at.alone ? 'end' : 'wait-for-peer'
}
