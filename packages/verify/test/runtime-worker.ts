/** The Workers bundle of runtimes.test.ts: the check of `runtime-check.ts`, as a fetch handler. */
import { check } from './runtime-check.js'

export default {
  async fetch(request: Request, env: { JWKS_URL: string }) {
    const { good, bad } = (await request.json()) as { good: string; bad: string }
    return Response.json(await check(env.JWKS_URL, good, bad))
  },
}
