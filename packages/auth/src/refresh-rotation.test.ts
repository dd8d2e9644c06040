/**
 * The session rules alone, without a store: what a session has left (`session-lifetimes.ts`) and
 * what a presented refresh value means (`refresh-rotation.ts`).
 */
import { describe, expect, it } from 'vitest'
import { judgeRotation } from './refresh-rotation.js'
import { type SessionLifetimes, sessionRemainingMs } from './session-lifetimes.js'
import type { SessionRefreshState } from './store/types.js'

const T0 = new Date('2026-11-21T10:00:00.000Z')
const at = (ms: number) => new Date(T0.getTime() + ms)
const DAY = 86_400_000
const lifetimes: SessionLifetimes = { idleMs: 30 * DAY, absoluteMs: 90 * DAY, graceMs: 10_000 }

const state = (over: Partial<SessionRefreshState> = {}): SessionRefreshState => ({
  id: 's',
  userId: 'u',
  createdAt: T0,
  refreshedAt: T0,
  refreshKeyHash: 'key',
  refreshHash: 'current',
  previousRefreshHash: null,
  rotatedAt: null,
  authenticatedAt: T0,
  amr: ['pwd'],
  ...over,
})

describe('sessionRemainingMs', () => {
  it('is the sooner of the idle and the absolute deadline', () => {
    expect(sessionRemainingMs(state(), T0, lifetimes)).toBe(30 * DAY)
    const late = state({ refreshedAt: at(80 * DAY) })
    expect(sessionRemainingMs(late, at(80 * DAY), lifetimes)).toBe(10 * DAY)
    expect(sessionRemainingMs(state(), at(30 * DAY), lifetimes)).toBe(0)
  })
})

/**
 * A presented value: its hash, the hash of the session key it carries (default: the session's),
 * and whether it carries the server's mark (default: it does, as every value a session issued).
 */
const v = (hash: string, keyHash: string | null = 'key', issued = keyHash !== null) => ({ hash, keyHash, issued })

describe('judgeRotation', () => {
  it('rotates the current value of a live session', () => {
    expect(judgeRotation(state(), v('current'), at(1000), lifetimes)).toBe('rotate')
    expect(judgeRotation(state({ refreshedAt: at(80 * DAY) }), v('current'), at(90 * DAY - 1), lifetimes)).toBe('rotate')
  })

  it('expires the current value at the idle or the absolute deadline, to the millisecond', () => {
    expect(judgeRotation(state(), v('current'), at(30 * DAY - 1), lifetimes)).toBe('rotate')
    expect(judgeRotation(state(), v('current'), at(30 * DAY), lifetimes)).toBe('expired')
    expect(judgeRotation(state({ refreshedAt: at(80 * DAY) }), v('current'), at(90 * DAY), lifetimes)).toBe('expired')
  })

  it('calls the just-replaced value a race inside the grace window and reuse from its end', () => {
    const rotated = state({ refreshHash: 'next', previousRefreshHash: 'current', rotatedAt: at(1000) })
    expect(judgeRotation(rotated, v('current'), at(1000 + 9_999), lifetimes)).toBe('race')
    expect(judgeRotation(rotated, v('current'), at(1000 + 10_000), lifetimes)).toBe('reused')
    expect(judgeRotation(rotated, v('current'), at(1000), { ...lifetimes, graceMs: 0 })).toBe('reused')
  })

  it('calls an earlier value of the session reuse, even of a dead session: it carries the session key and the mark', () => {
    expect(judgeRotation(state(), v('never-issued'), at(0), lifetimes)).toBe('reused')
    expect(judgeRotation(state({ refreshHash: null }), v('current'), at(0), lifetimes)).toBe('reused')
    expect(judgeRotation(state(), v('older'), at(365 * DAY), lifetimes)).toBe('reused')
  })

  it('calls a value with the key but without the mark foreign: its holder made it up, and the session lives', () => {
    for (const hash of ['never-issued', 'older'])
      for (const ms of [0, 20_000, 365 * DAY])
        expect(judgeRotation(state(), v(hash, 'key', false), at(ms), lifetimes)).toBe('foreign')
    // The current value needs no mark to rotate (values from before marks keep working) ...
    expect(judgeRotation(state(), v('current', 'key', false), at(0), lifetimes)).toBe('rotate')
    // ... and the value the current one replaced is known by its hash, mark or not.
    const rotated = state({ refreshHash: 'next', previousRefreshHash: 'current', rotatedAt: at(0) })
    expect(judgeRotation(rotated, v('current', 'key', false), at(20_000), lifetimes)).toBe('reused')
  })

  it('calls a value without the session key foreign, whatever its value: only the session id was known', () => {
    for (const keyHash of [null, 'other-key'])
      for (const hash of ['current', 'made-up'])
        expect(judgeRotation(state(), v(hash, keyHash), at(0), lifetimes)).toBe('foreign')
    // The value the current one replaced is known to have been issued, with or without the key.
    const rotated = state({ refreshHash: 'next', previousRefreshHash: 'current', rotatedAt: at(0) })
    expect(judgeRotation(rotated, v('current', null), at(20_000), lifetimes)).toBe('reused')
    expect(judgeRotation(rotated, v('current', null), at(5_000), lifetimes)).toBe('race')
  })

  it('judges a session from before session keys by its values alone', () => {
    const legacy = state({ refreshKeyHash: null, refreshHash: 'next', previousRefreshHash: 'current', rotatedAt: at(0) })
    expect(judgeRotation(legacy, v('next', null), at(20_000), lifetimes)).toBe('rotate')
    expect(judgeRotation(legacy, v('current', null), at(20_000), lifetimes)).toBe('reused')
    expect(judgeRotation(legacy, v('made-up', null), at(20_000), lifetimes)).toBe('foreign')
    expect(judgeRotation(legacy, v('made-up', 'some-key'), at(20_000), lifetimes)).toBe('foreign')
    expect(judgeRotation(legacy, v('made-up', 'some-key', true), at(20_000), lifetimes)).toBe('foreign')
  })
})
