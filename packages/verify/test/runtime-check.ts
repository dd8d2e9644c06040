/**
 * Run by runtimes.test.ts on Bun and Deno: verifies a good and a tampered token against the key
 * server at JWKS_URL and prints one JSON line. `runtime-worker.ts` runs the same check in workerd.
 */
import { createVerifier, VerifyError } from '../src/index.js'

export const check = async (jwksUrl: string, good: string, bad: string) => {
  const verifier = createVerifier({ jwksUrl, issuer: 'latchkey', audience: 'latchkey' })
  const { sub } = await verifier.verify(good)
  const refused = await verifier.verify(bad).then(
    () => 'accepted',
    (err: unknown) => (err instanceof VerifyError ? err.code : String(err)),
  )
  return { sub, refused }
}

const g = globalThis as { process?: { env: Record<string, string | undefined> } }
const env = g.process?.env
if (env?.JWKS_URL && env.GOOD && env.BAD) console.log(JSON.stringify(await check(env.JWKS_URL, env.GOOD, env.BAD)))
