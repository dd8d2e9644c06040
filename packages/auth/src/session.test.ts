/** The session rules alone, without a store: lifetimes and what a presented refresh value means. */
import { describe, expect, it } from 'vitest'
import { judgeRotation, type SessionLifetimes, sessionRemainingMs } from './session.js'
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

describe('judgeRotation', () => {
  it('rotates the current value of a live session', () => {
    expect(judgeRotation(state(), 'current', at(1000), lifetimes)).toBe('rotate')
    expect(judgeRotation(state({ refreshedAt: at(80 * DAY) }), 'current', at(90 * DAY - 1), lifetimes)).toBe('rotate')
  })

  it('expires the current value at the idle or the absolute deadline, to the millisecond', () => {
    expect(judgeRotation(state(), 'current', at(30 * DAY - 1), lifetimes)).toBe('rotate')
    expect(judgeRotation(state(), 'current', at(30 * DAY), lifetimes)).toBe('expired')
    expect(judgeRotation(state({ refreshedAt: at(80 * DAY) }), 'current', at(90 * DAY), lifetimes)).toBe('expired')
  })

  it('calls the just-replaced value a race inside the grace window and reuse from its end', () => {
    const rotated = state({ refreshHash: 'next', previousRefreshHash: 'current', rotatedAt: at(1000) })
    expect(judgeRotation(rotated, 'current', at(1000 + 9_999), lifetimes)).toBe('race')
    expect(judgeRotation(rotated, 'current', at(1000 + 10_000), lifetimes)).toBe('reused')
    expect(judgeRotation(rotated, 'current', at(1000), { ...lifetimes, graceMs: 0 })).toBe('reused')
  })

  it('calls any other value reuse, even of a dead session', () => {
    expect(judgeRotation(state(), 'never-issued', at(0), lifetimes)).toBe('reused')
    expect(judgeRotation(state({ refreshHash: null }), 'current', at(0), lifetimes)).toBe('reused')
    expect(judgeRotation(state(), 'older', at(365 * DAY), lifetimes)).toBe('reused')
  })
})
