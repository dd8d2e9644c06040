/**
 * The client's state machine without `fetch`, timers or a clock: a table of state × event → next
 * state + effects, the pure decisions the runtime asks it (which token, which refresh, after a
 * refusal), and properties over random event sequences (fast-check) that every transition keeps.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ReauthenticationRequiredError } from '../src/errors.js'
import {
  afterRefusal,
  type ClientEvent,
  type ClientState,
  type Effect,
  initialState,
  inTurn,
  isRefreshing,
  logoutToken,
  tokenPlan,
  transition,
} from '../src/machine.js'
import type { User } from '../src/types.js'

const settings = { skewMs: 30_000 }
const T0 = 1_800_000_000_000
const ada: User = { id: 'u1', name: 'Ada', email: 'ada@example.com', emailVerified: true, createdAt: '2026-11-21T10:00:00.000Z' }
const bob: User = { ...ada, id: 'u2', name: 'Bob', email: 'bob@example.com' }
const stepUpError = new ReauthenticationRequiredError({ type: 'urn:latchkey:problem:reauthentication-required' }, 300)

/** Signed in until T0 + 15 minutes, refreshed from 30 s before. */
const signedIn: ClientState = {
  ...initialState,
  token: { value: 'token-a', expiresAt: T0 + 900_000, refreshAt: T0 + 870_000 },
  user: ada,
  view: { user: ada },
  generation: 1,
}
const states = {
  'signed out': initialState,
  'signed in until t': signedIn,
  /** After a reload: the refresh came back with a token, the user is not known yet. */
  'signed in, user unknown': { ...signedIn, user: null, view: { user: null } },
  refreshing: { ...signedIn, activity: 'refreshing' },
  'refreshing after a reload': { ...initialState, activity: 'refreshing' },
  'signing out': { ...signedIn, activity: 'signing-out' },
  'refreshing, then signing out': { ...signedIn, activity: 'refreshing-then-signing-out' },
  'reauthentication required': { ...signedIn, steppingUp: true },
} satisfies Record<string, ClientState>

const token = (from: 'self' | 'peer', user: User | null = ada, lifetimeMs = 900_000): ClientEvent => ({
  type: 'token',
  token: `token-${from}`,
  expiresAt: T0 + lifetimeMs,
  user,
  from,
  now: T0,
})

const endedEffects = (tell: boolean): Effect[] => [
  { type: 'cancel-refresh' },
  ...(tell ? [{ type: 'tell', message: { type: 'signed-out' } } as const] : []),
  { type: 'publish' },
  { type: 'wake-waiting' },
]
const signedOutAfter = (from: ClientState): Partial<ClientState> => ({
  token: null,
  user: null,
  view: { user: null },
  generation: from.generation + 1,
  signedOutAt: from.generation + 1,
})

/** [state, event, what changes (`same`: the very same state), the effects in order] */
const table: [keyof typeof states, ClientEvent, Partial<ClientState> | 'same', Effect[]][] = [
  ['signed out', { type: 'refresh-asked' }, { activity: 'refreshing' }, [{ type: 'start-refresh' }]],
  ['signed in until t', { type: 'refresh-asked' }, { activity: 'refreshing' }, [{ type: 'start-refresh' }]],
  // A refresh under way is joined; while signing out no new refresh begins (the answer is false).
  ['refreshing', { type: 'refresh-asked' }, 'same', []],
  ['signing out', { type: 'refresh-asked' }, 'same', []],
  ['refreshing, then signing out', { type: 'refresh-asked' }, 'same', []],
  ['refreshing', { type: 'refresh-settled' }, { activity: 'idle' }, []],
  ['refreshing, then signing out', { type: 'refresh-settled' }, { activity: 'signing-out' }, []],
  ['signed in until t', { type: 'sign-out-asked' }, { activity: 'signing-out' }, []],
  ['refreshing', { type: 'sign-out-asked' }, { activity: 'refreshing-then-signing-out' }, []],
  ['signing out', { type: 'sign-out-asked' }, 'same', []],
  [
    'signing out',
    { type: 'sign-out-settled' },
    { activity: 'idle', ...signedOutAfter(states['signing out']) },
    endedEffects(true),
  ],
  ['signed in until t', { type: 'signed-out', tell: true }, signedOutAfter(signedIn), endedEffects(true)],
  ['signed in until t', { type: 'signed-out', tell: false }, signedOutAfter(signedIn), endedEffects(false)],
  // Another tab signed out: signed out here without telling anyone; already signed out, only the waits wake.
  ['signed in until t', { type: 'peer-signed-out' }, signedOutAfter(signedIn), endedEffects(false)],
  ['signed out', { type: 'peer-signed-out' }, 'same', [{ type: 'wake-waiting' }]],
  [
    'signed out',
    token('self'),
    {
      token: { value: 'token-self', expiresAt: T0 + 900_000, refreshAt: T0 + 870_000 },
      user: ada,
      view: { user: ada },
      generation: 1,
      signedOutAt: 0,
    },
    [
      { type: 'schedule-refresh', inMs: 870_000 },
      { type: 'tell', message: { type: 'token', accessToken: 'token-self', expiresIn: 900, user: ada } },
      { type: 'publish' },
      { type: 'wake-waiting' },
    ],
  ],
  // Another tab's token, same user: nothing to tell or publish; a token without a user keeps the user.
  [
    'signed in until t',
    token('peer', { ...ada }),
    { token: { value: 'token-peer', expiresAt: T0 + 900_000, refreshAt: T0 + 870_000 }, view: signedIn.view, generation: 2 },
    [{ type: 'schedule-refresh', inMs: 870_000 }, { type: 'wake-waiting' }],
  ],
  [
    'signed in until t',
    token('peer', null),
    { token: { value: 'token-peer', expiresAt: T0 + 900_000, refreshAt: T0 + 870_000 }, user: ada, generation: 2 },
    [{ type: 'schedule-refresh', inMs: 870_000 }, { type: 'wake-waiting' }],
  ],
  // A token of 10 s is refreshed at half its life, not 30 s ahead (it would be due at once).
  [
    'signed out',
    token('peer', null, 10_000),
    { token: { value: 'token-peer', expiresAt: T0 + 10_000, refreshAt: T0 + 5_000 }, generation: 1 },
    [{ type: 'schedule-refresh', inMs: 5_000 }, { type: 'wake-waiting' }],
  ],
  [
    'signed in, user unknown',
    { type: 'user', user: ada, forToken: 'token-a' },
    { user: ada, view: { user: ada } },
    [{ type: 'publish' }],
  ],
  // Learned for a token no longer held, or when the user is known: dropped.
  ['signed in, user unknown', { type: 'user', user: ada, forToken: 'token-b' }, 'same', []],
  ['signed in until t', { type: 'user', user: bob, forToken: 'token-a' }, 'same', []],
  ['signed in until t', { type: 'user', user: bob }, { user: bob, view: { user: bob } }, [{ type: 'publish' }]],
  ['signed in until t', { type: 'user', user: { ...ada } }, { view: signedIn.view }, []],
  [
    'signed in until t',
    { type: 'step-up-asked', error: stepUpError },
    { steppingUp: true },
    [{ type: 'start-step-up', error: stepUpError }],
  ],
  ['reauthentication required', { type: 'step-up-asked', error: stepUpError }, 'same', []],
  ['reauthentication required', { type: 'step-up-settled' }, { steppingUp: false }, []],
]

describe('transition: state × event → state + effects', () => {
  it.each(table.map(([name, event, change, effects]) => [name, event.type, event, change, effects] as const))(
    '%s + %s',
    (name, _, event, change, effects) => {
      const from = states[name]
      const step = transition(from, event, settings)
      if (change === 'same') expect(step.state).toBe(from)
      else expect(step.state).toEqual({ ...from, ...change })
      expect(step.effects).toEqual(effects)
      // The view object is kept while the user is the same, so `useSyncExternalStore` sees no change.
      if (change !== 'same' && change.view === from.view) expect(step.state.view).toBe(from.view)
    },
  )
})

describe('the decisions the runtime asks for', () => {
  it('getAccessToken: use the token until refreshAt, refresh after it or while a refresh runs, null with no session and no cookie', () => {
    expect(tokenPlan(signedIn, T0 + 869_999, false)).toBe('use')
    expect(tokenPlan(signedIn, T0 + 870_000, false)).toBe('refresh')
    expect(tokenPlan(states.refreshing, T0, false)).toBe('refresh')
    expect(tokenPlan(initialState, T0, false)).toBe('none')
    expect(tokenPlan(initialState, T0, true)).toBe('refresh')
    // A user whose token is gone still has a session to refresh.
    expect(tokenPlan({ ...signedIn, token: null }, T0, false)).toBe('refresh')
  })

  it('sign-out: the token names the session until it expires, then the cookie alone', () => {
    expect(logoutToken(signedIn, T0 + 899_999)).toBe('token-a')
    expect(logoutToken(signedIn, T0 + 900_000)).toBeNull()
    expect(logoutToken(initialState, T0)).toBeNull()
  })

  it('in the refresh lock: take a fresh token another tab got, give up after its sign-out, else ask', () => {
    const seen = signedIn.generation
    expect(inTurn(signedIn, seen, T0)).toBe('ask')
    const peer = transition(signedIn, token('peer'), settings).state
    expect(inTurn(peer, seen, T0)).toBe('peer')
    expect(inTurn(peer, seen, T0 + 870_000)).toBe('ask')
    const ended = transition(signedIn, { type: 'peer-signed-out' }, settings).state
    expect(inTurn(ended, seen, T0)).toBe('refused')
  })

  it('after a refused refresh: alone it ends and tells; with tabs it takes, waits for, or quietly ends', () => {
    const seen = signedIn.generation
    const base = { seen, wasSignedIn: true, crossTab: true, alone: false }
    expect(afterRefusal(signedIn, { ...base, crossTab: false })).toBe('end')
    expect(afterRefusal(transition(signedIn, token('peer'), settings).state, base)).toBe('take-peer')
    expect(afterRefusal(signedIn, { ...base, wasSignedIn: false })).toBe('end-quietly')
    expect(afterRefusal(transition(signedIn, { type: 'peer-signed-out' }, settings).state, base)).toBe('end-quietly')
    expect(afterRefusal(signedIn, { ...base, alone: true })).toBe('end')
    expect(afterRefusal(signedIn, base)).toBe('wait-for-peer')
  })
})

const users = fc.constantFrom<User | null>(null, ada, bob, { ...ada })
const event: fc.Arbitrary<ClientEvent> = fc.oneof(
  fc.record({
    type: fc.constant('token' as const),
    token: fc.constantFrom('t1', 't2', 't3'),
    expiresAt: fc.integer({ min: T0 - 1_000, max: T0 + 3_600_000 }),
    user: users,
    from: fc.constantFrom('self' as const, 'peer' as const),
    now: fc.constant(T0),
  }),
  fc.record({
    type: fc.constant('user' as const),
    user: fc.constantFrom(ada, bob, { ...bob }),
    forToken: fc.option(fc.constantFrom('t1', 't2'), { nil: undefined }),
  }),
  fc.record({ type: fc.constant('signed-out' as const), tell: fc.boolean() }),
  fc.constantFrom<ClientEvent>(
    { type: 'peer-signed-out' },
    { type: 'refresh-asked' },
    { type: 'refresh-settled' },
    { type: 'sign-out-asked' },
    { type: 'sign-out-settled' },
    { type: 'step-up-asked', error: stepUpError },
    { type: 'step-up-settled' },
  ),
)

describe('properties over any sequence of events', () => {
  it('keeps its invariants, and is pure', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        let state = initialState
        for (const e of events) {
          const before = structuredClone(state)
          const step = transition(state, e, settings)
          // Pure: the state given is not changed, and the same input gives the same output.
          expect(state).toEqual(before)
          expect(transition(state, e, settings)).toEqual(step)
          const next = step.state
          const types = step.effects.map((effect) => effect.type)
          // The view follows the user, and changes (and is published) only when the user does.
          expect(next.view.user).toEqual(next.user)
          expect(types.includes('publish')).toBe(next.view !== state.view)
          if (JSON.stringify(next.user) === JSON.stringify(state.user)) expect(next.view).toBe(state.view)
          expect(next.generation).toBeGreaterThanOrEqual(state.generation)
          expect(next.signedOutAt).toBeLessThanOrEqual(next.generation)
          // One refresh at a time, and none begins while signing out.
          if (types.includes('start-refresh')) {
            expect(state.activity).toBe('idle')
            expect(isRefreshing(next)).toBe(true)
          }
          if (e.type === 'refresh-asked' && !types.includes('start-refresh')) expect(next).toBe(state)
          // One step-up at a time.
          if (types.includes('start-step-up')) expect(state.steppingUp).toBe(false)
          // What another tab said is never said back (no echo between tabs).
          if (e.type === 'peer-signed-out' || (e.type === 'token' && e.from === 'peer')) expect(types).not.toContain('tell')
          // A token is refreshed ahead of its expiry, but never before half its life.
          if (e.type === 'token' && next.token) {
            const lifetime = Math.max(0, e.expiresAt - e.now)
            expect(next.token.refreshAt).toBeLessThanOrEqual(next.token.expiresAt)
            const scheduled = step.effects.find((effect) => effect.type === 'schedule-refresh')
            expect(scheduled?.inMs).toBeGreaterThanOrEqual(lifetime / 2)
            expect(scheduled?.inMs).toBeLessThanOrEqual(lifetime)
          }
          // Signed out: no token, no user, and the timer is stopped.
          if (e.type === 'signed-out' || e.type === 'sign-out-settled') {
            expect(next.token).toBeNull()
            expect(next.user).toBeNull()
            expect(types[0]).toBe('cancel-refresh')
          }
          state = next
        }
      }),
      { numRuns: 300 },
    )
  })

  it('two tabs that hear each other agree on the token and the user once every message is delivered', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), event), { maxLength: 30 }), (script) => {
        const tabs = [initialState, initialState]
        let told = -1
        for (const [tab, e] of script) {
          told = -1
          // Each tab acts in turn; a tab's messages reach the other before it acts (one channel, in order).
          const step = transition(tabs[tab] as ClientState, e, settings)
          tabs[tab] = step.state
          for (const effect of step.effects) {
            if (effect.type !== 'tell') continue
            told = tab
            const message = effect.message
            const heard: ClientEvent =
              message.type === 'token'
                ? {
                    type: 'token',
                    token: message.accessToken,
                    expiresAt: T0 + message.expiresIn * 1000,
                    user: message.user,
                    from: 'peer',
                    now: T0,
                  }
                : { type: 'peer-signed-out' }
            tabs[1 - tab] = transition(tabs[1 - tab] as ClientState, heard, settings).state
          }
        }
        // When the last event was told, the tab that heard it holds the token the sender holds.
        if (told >= 0) {
          const [sender, receiver] = [tabs[told] as ClientState, tabs[1 - told] as ClientState]
          expect(receiver.token?.value ?? null).toBe(sender.token?.value ?? null)
          if (sender.token === null) expect(receiver.user).toBeNull()
        }
      }),
      { numRuns: 300 },
    )
  })
})
