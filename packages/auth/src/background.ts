/**
 * Work that runs after an answer has been decided (mails, events, forgot-password's lookup and
 * token), so it cannot change the answer's status, body or timing; and a way to wait for it on
 * shutdown.
 */
import { errorSummary } from './errors.js'

export interface AfterAnswer {
  /** Runs `task` a timer turn later. A failure is logged by name only. */
  run(what: string, task: () => Promise<void>): void
  /**
   * Runs `task` on a clock that beats every {@link PACE_MS} whatever arrives, at the first beat
   * at least one period after it was asked for, in turn with the other paced tasks: the work
   * starts at a moment that depends neither on what it will find nor closely on when it was asked
   * for, so a request sent right behind the one that asked never meets it, and a beat that meets
   * any request carries work asked for by earlier requests only. Past {@link PACED_MAX} waiting
   * tasks a new one is dropped and logged.
   */
  paced(what: string, task: () => Promise<void>): void
  /** Resolves once every task started or queued so far, and every task they started, has finished. */
  settled(): Promise<void>
}

/** The beat of paced work (ms): a reset mail leaves one to two beats later than it would at once. */
export const PACE_MS = 100
/**
 * Paced work whose cost depends on what it finds (forgot-password's lookup, token write and mail)
 * runs within this long after its beat (ms), at a moment drawn at random: see {@link atRandomWithin}.
 */
export const SPREAD_MS = 1000
/** Paced tasks run per beat at most; the rest wait for the next. */
const PER_BEAT = 200
/** Paced tasks that may wait (a flood of forgot-password from many addresses): memory stays bounded. */
const PACED_MAX = 10_000

export const afterAnswer = (log: (message: string) => void): AfterAnswer => {
  const pending = new Set<Promise<void>>()
  const track = (what: string, started: Promise<void>, task: () => Promise<void>) => {
    const running: Promise<void> = started
      .then(task)
      .catch((err: unknown) => log(`${what}: work after the answer failed: ${errorSummary(err)}`))
      .finally(() => pending.delete(running))
    pending.add(running)
  }

  const waiting: { due: number; start: () => void }[] = []
  let beat: ReturnType<typeof setTimeout> | undefined
  let dropped = 0
  const schedule = () => {
    if (beat !== undefined || waiting.length === 0) return
    // The next multiple of PACE_MS on the wall clock: when it comes does not depend on the request.
    beat = setTimeout(
      () => {
        beat = undefined
        const now = Date.now()
        let ready = 0
        while (ready < PER_BEAT && ready < waiting.length && (waiting[ready]?.due ?? now) <= now) ready++
        for (const { start } of waiting.splice(0, ready)) start()
        if (dropped > 0) log(`paced work: ${dropped} task(s) dropped, more than ${PACED_MAX} were waiting`)
        dropped = 0
        schedule()
      },
      PACE_MS - (Date.now() % PACE_MS),
    )
  }

  return {
    run(what, task) {
      track(what, new Promise<void>((resolve) => setTimeout(resolve, 0)), task)
    },
    paced(what, task) {
      if (waiting.length >= PACED_MAX) {
        dropped++
        return
      }
      const due = Date.now() + PACE_MS
      track(what, new Promise<void>((resolve) => waiting.push({ due, start: resolve })), task)
      schedule()
    },
    async settled() {
      while (pending.size > 0) await Promise.allSettled(pending)
    },
  }
}

/**
 * Resolves after a uniformly random part of `ms` (Web Crypto): work that only some requests cause
 * runs at a moment an observer cannot predict, so no request can be sent to meet it.
 */
export const atRandomWithin = (ms: number): Promise<void> => {
  const [draw = 0] = crypto.getRandomValues(new Uint32Array(1))
  return new Promise((resolve) => setTimeout(resolve, (draw / 2 ** 32) * ms))
}
