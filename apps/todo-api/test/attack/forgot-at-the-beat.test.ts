/**
 * forgot-password leaks nothing at any moment (SECURITY.md, "Fixed after the fourth review";
 * docs/reference/endpoints.md#forgot-password): whenever the work it does after answering (account
 * lookup, token write, mail) runs, a request sent at that moment is no slower for an email with an
 * account than for one without. The fourth review sent forgot-password just after a 100 ms beat of
 * the wall clock, when the server ran that work at the second beat after it, and probed at that
 * beat: 7.88 vs 6.01 ms median on SQLite. Here: the real server in production mode on each store,
 * mail over SMTP to a catcher on loopback, forgot-password sent at the same phase, a probe at the
 * old beat and a few milliseconds after it, both sides interleaved in one shuffled run, medians
 * within 10 % at each offset. (A request right behind a forgot-password: forgot-next-request.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ATTACK_STORES } from './db-view.js'
import { type ForgotBench, forgotBench, pause, probe, shuffled } from './forgot-timing.js'
import { median } from './helpers.js'

/** The beat the old server ran deferred work on (ms of the wall clock). */
const BEAT = 100
/**
 * Where the probe goes, in ms after the beat that followed the forgot-password's by two: at it, and
 * just after it (where the old server's work for an account ran).
 */
const OFFSETS = [0, 3] as const
/** Samples of each side at each offset in a round. */
const SAMPLES = 30
/** Time on a shared machine is noisy: up to this many rounds are measured and pooled; a real leak stays out of the band. */
const ROUNDS = 4
/**
 * Attempts of the test: the timing project measures a comparison that missed its band once more
 * (vitest.config.ts, `retry: 1`), on the same server and accounts.
 */
const ATTEMPTS = 2
/** Every email is asked for at most 9 times over all rounds of every attempt, under the per-email limit of 10. */
const ACCOUNTS = Math.ceil(((SAMPLES * OFFSETS.length * ROUNDS + 3) * ATTEMPTS) / 9)

/** The wall clock with sub-millisecond precision. */
const wall = () => performance.timeOrigin + performance.now()
/** Waits until the wall clock reads `at`: a timer to just before it, then a short spin. */
const until = async (at: number) => {
  const ahead = at - wall() - 3
  if (ahead > 0) await pause(ahead)
  while (wall() < at) {}
}

describe.each(ATTACK_STORES)('a request at the moment forgot-password works, on $name', (store) => {
  let bench: ForgotBench

  beforeAll(async () => {
    if (store.skip) return
    bench = await forgotBench(store, ACCOUNTS)
  }, 240_000)

  afterAll(async () => {
    await bench?.close()
  })

  it.skipIf(store.skip !== null)(
    'is as fast for an email with an account as for one without, at the beat and after it (medians within 10 %)',
    async () => {
      const resets = () => bench.smtp.mails.filter((m) => m.kind === 'reset-password').length
      // What an earlier attempt sent has gone out (its deferred work runs within a second).
      await pause(2_000)
      const before = resets()
      /** forgot-password 1 ms after a beat, then the probe `offset` ms after the beat two later. */
      const sample = async (email: string, offset: number) => {
        const beat = Math.ceil((wall() + 5) / BEAT) * BEAT
        await until(beat + 1)
        await bench.forgot(email)
        await until(beat + 2 * BEAT + offset)
        return probe(bench.server.base)
      }
      for (let i = 0; i < 6; i++)
        await sample(i % 2 ? bench.knownEmail() : bench.unknownEmail(), OFFSETS[i % OFFSETS.length] ?? 0)

      /**
       * Every sample so far, by offset. A round adds `SAMPLES` of both sides at every offset in one
       * shuffled order (work that lands on a later sample lands on either side's as often).
       */
      const times = new Map(OFFSETS.map((offset) => [offset, { withAccount: [] as number[], without: [] as number[] }]))
      const round = async () => {
        const plan = OFFSETS.flatMap((offset) => [true, false].flatMap((known) => Array(SAMPLES).fill({ offset, known })))
        for (const { offset, known } of shuffled(plan) as { offset: (typeof OFFSETS)[number]; known: boolean }[]) {
          const at = times.get(offset)
          if (known) at?.withAccount.push(await sample(bench.knownEmail(), offset))
          else at?.without.push(await sample(bench.unknownEmail(), offset))
        }
      }
      /** The ratio of the medians at each offset, over every round so far. */
      const ratios = () =>
        OFFSETS.map((offset) => {
          const { withAccount, without } = times.get(offset) ?? { withAccount: [], without: [] }
          const ratio = median(withAccount) / median(without)
          console.log(
            `request ${offset} ms after the beat behind forgot-password on ${store.name}, ${withAccount.length} samples a side: median with account ${median(withAccount).toFixed(3)} ms, without ${median(without).toFixed(3)} ms, ratio ${ratio.toFixed(3)}`,
          )
          return { offset, ratio }
        })
      // A shared machine's noise shrinks as the rounds pool their samples; a real difference (the
      // review's +31 %) stays however many there are.
      let found: { offset: number; ratio: number }[] = []
      let rounds = 0
      while (rounds++ < ROUNDS) {
        await round()
        found = ratios()
        if (found.every(({ ratio }) => ratio >= 0.9 && ratio <= 1.1)) break
      }
      for (const { offset, ratio } of found) {
        expect(ratio, `${offset} ms after the beat`).toBeGreaterThanOrEqual(0.9)
        expect(ratio, `${offset} ms after the beat`).toBeLessThanOrEqual(1.1)
      }
      // The mails did go out: one per request for an account (the warm-up's 3 included).
      await expect
        .poll(() => resets() - before, { timeout: 10_000 })
        .toBe(SAMPLES * OFFSETS.length * Math.min(rounds, ROUNDS) + 3)
    },
    900_000,
  )
})
