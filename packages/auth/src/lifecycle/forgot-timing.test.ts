/**
 * forgot-password's answer must not tell whether an email has an account, in its time either
 * (docs/reference/endpoints.md#forgot-password). The one timing assertion the tests allow,
 * because here timing is the promise: the medians of many interleaved requests for a known and an unknown email, taken in one run.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { harness } from '../../test/harness.js'
import { median } from '../../test/median.js'
import { type OpenedStore, STORES } from '../../test/stores.js'

const SAMPLES = 500

describe.each(STORES)('forgot-password timing on $name', ({ name, skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })

  it.skipIf(skip !== null)(
    'answers as fast for an email with an account as for one without (medians within 10%)',
    { retry: 2 },
    async () => {
      // Limits out of the way: this test is about time, and the limiter treats both emails alike.
      const generous = { max: 1_000_000, windowSeconds: 900 }
      const h = harness({ store: opened.store, rateLimit: { ip: generous, email: generous } })
      await h.signup('known@example.com')
      // The work after each answer runs on the paced beat, whatever request is being measured then:
      // equally often during either side's requests, so no waiting for it between them.
      const time = async (email: string) => {
        const started = performance.now()
        const res = await h.request('POST', '/auth/forgot-password', { json: { email } })
        const elapsed = performance.now() - started
        expect(res.status).toBe(202)
        return elapsed
      }
      for (let i = 0; i < 30; i++) await time(i % 2 ? 'known@example.com' : 'nadia@example.com')

      const known: number[] = []
      const unknown: number[] = []
      // K U U K, repeated: each side follows each side equally often, so neither side always runs
      // right after the other's background work.
      for (let i = 0; i < 2 * SAMPLES; i++) {
        if (i % 4 === 0 || i % 4 === 3) known.push(await time('known@example.com'))
        else unknown.push(await time('nadia@example.com'))
      }
      await h.auth.settled()
      const ratio = median(known) / median(unknown)
      console.log(
        `forgot-password on ${name}: median known ${median(known).toFixed(3)} ms, unknown ${median(unknown).toFixed(3)} ms, ratio ${ratio.toFixed(3)}`,
      )
      expect(ratio).toBeGreaterThanOrEqual(0.9)
      expect(ratio).toBeLessThanOrEqual(1.1)
      expect(h.mails.length).toBe(SAMPLES + 15)
    },
  )
})
