/** Inside workerd: the WebAuthn verification check (test/passkey-runtime-check.ts), answered as its lines. */
import { check } from '../passkey-runtime-check.js'

export default {
  async fetch(): Promise<Response> {
    try {
      return new Response((await check()).join('\n'))
    } catch (err) {
      return new Response(err instanceof Error ? err.message : String(err), { status: 500 })
    }
  },
}
