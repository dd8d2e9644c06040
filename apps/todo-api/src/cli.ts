/**
 * Command line for operators.
 *
 * `set-role <email> <role>`: sets the free-form role that policies read (`admin` passes the
 * reference app's admin policy). Uses DATABASE_URL like the server; exits 1 when no account has
 * that email.
 *
 * `disable <email> <reason…>` / `enable <email>`: what the operators' routes do
 * (docs/guide/operators.md#disable), for when no operator can sign in: disabling ends every
 * session of the account at once and refuses its sign-ins; enabling lets it sign in again. Each
 * prints one audit line (`actorId: "cli"`); no mail is sent. Exits 1 when no account has that email.
 *
 * `keys generate [--alg EdDSA|ES256]`: prints a new private signing key (a JWK with a fresh
 * `kid`, one line) for AUTH_SIGNING_KEYS. Default EdDSA (Ed25519). docs/guide/rotating-keys.md
 * (#rotating-signing-keys) says where in the list it goes.
 *
 * `reseal`: runs the sweep once with AUTH_SECRET and AUTH_ENCRYPTION_KEY as the server reads
 * them (and DATABASE_URL), which seals again under the first key whatever another key sealed, and
 * prints how many sealed values still name an old key; exits 0 when none does (the old key may
 * go), 1 otherwise.
 *
 * Exits 2 on a usage error.
 *
 *   pnpm --filter @latchkey/todo-api cli set-role ada@example.com admin
 *   pnpm --filter @latchkey/todo-api cli keys generate --alg ES256
 *   AUTH_SECRET=… AUTH_ENCRYPTION_KEY=<new>,<old> pnpm --filter @latchkey/todo-api cli reseal
 */
import { accountEvents, canonicalEmail, createAuth } from '@latchkey/auth'
import { exportJWK, generateKeyPair } from 'jose'
import { ConfigError, describeDatabase, parseDatabaseUrl } from './config.js'
import { type AppDatabase, openDatabase } from './db/index.js'

const USAGE =
  'usage: cli set-role <email> <role>\n       cli disable <email> <reason…>\n       cli enable <email>\n       cli keys generate [--alg EdDSA|ES256]\n       cli reseal'

/** A kid that sorts by creation and tells keys of the same day apart: `2026-11-25-Xc3q9LwA`. */
const newKid = (now: Date) =>
  `${now.toISOString().slice(0, 10)}-${Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString('base64url')}`

const generateKey = async (args: string[]): Promise<number> => {
  const alg = args.length === 0 ? 'EdDSA' : args[0] === '--alg' && args.length === 2 ? args[1] : undefined
  if (alg !== 'EdDSA' && alg !== 'ES256') {
    console.error(USAGE)
    return 2
  }
  const { privateKey } = await generateKeyPair(alg, { extractable: true })
  const jwk = { ...(await exportJWK(privateKey)), alg, use: 'sig', kid: newKid(new Date()) }
  console.log(JSON.stringify(jwk))
  console.error(
    'A private key: keep it as secret as AUTH_SECRET. Add it to AUTH_SIGNING_KEYS after the signing key, ' +
      'and move it first only once every service has fetched it (docs/guide/rotating-keys.md#rotating-signing-keys).',
  )
  return 0
}

/** Runs `task` on the database DATABASE_URL names; answers its exit status (1 or 2 when the database cannot be opened). */
const withDatabase = async (task: (db: AppDatabase) => Promise<number>): Promise<number> => {
  let target: ReturnType<typeof parseDatabaseUrl>
  try {
    target = parseDatabaseUrl(process.env.DATABASE_URL)
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`cli: ${err.message}`)
      return 2
    }
    throw err
  }
  let db: AppDatabase
  try {
    db = await openDatabase(target)
  } catch (err) {
    console.error(
      `cli: cannot open the database named by DATABASE_URL (${describeDatabase(target)}): ${err instanceof Error ? err.message : String(err)}`,
    )
    return 1
  }
  try {
    return await task(db)
  } finally {
    await db.close()
  }
}

const setRole = (email: string, role: string): Promise<number> =>
  withDatabase(async (db) => {
    const canonical = canonicalEmail(email)
    if (!(await db.authStore.setRole(canonical, role.trim()))) {
      console.error(`cli: no account with the email ${canonical}`)
      return 1
    }
    console.log(`role of ${canonical} is now "${role.trim()}"`)
    return 0
  })

/** Disables (with a reason) or enables the account of `email`, as an operator's route does. */
const setDisabled = (email: string, reason: string | null): Promise<number> =>
  withDatabase(async (db) => {
    const canonical = canonicalEmail(email)
    const found = await db.authStore.findUserByEmail(canonical)
    if (!found) {
      console.error(`cli: no account with the email ${canonical}`)
      return 1
    }
    const at = new Date()
    const revoked = await db.authStore.setUserDisabled({
      userId: found.user.id,
      disabledAt: reason === null ? null : at,
      revoke: accountEvents[reason === null ? 'account-enabled' : 'account-disabled'],
    })
    const type = reason === null ? 'admin.user_enabled' : 'admin.user_disabled'
    const event = { type, at: at.toISOString(), actorId: 'cli', userId: found.user.id, ...(reason === null ? {} : { reason }) }
    console.log(JSON.stringify({ audit: event }))
    console.log(`${canonical} is now ${reason === null ? 'enabled' : `disabled (${revoked?.length ?? 0} sessions ended)`}`)
    return 0
  })

/** The sweep once, over the keys the server is given. */
const reseal = (): Promise<number> =>
  withDatabase(async (db) => {
    const list = (name: string) => process.env[name]?.split(',').filter((s) => s !== '') ?? []
    const encryptionKeys = list('AUTH_ENCRYPTION_KEY')
    let auth: ReturnType<typeof createAuth>
    try {
      auth = createAuth({
        secret: list('AUTH_SECRET'),
        ...(encryptionKeys.length > 0 ? { encryptionKeys } : {}),
        store: db.authStore,
        sendMail: () => {},
        prune: { intervalSeconds: 0 },
        log: (line) => console.error(`cli: ${line}`),
      })
    } catch (err) {
      // createAuth names the bad option (a missing or weak secret or key).
      console.error(`cli: ${err instanceof Error ? err.message : String(err)}`)
      return 2
    }
    try {
      const { resealed } = await auth.prune()
      const left = await auth.sealedUnderOldKeys()
      console.log(`sealed again under the first key: ${resealed}; still under an old key: ${left}`)
      return left === 0 ? 0 : 1
    } finally {
      await auth.close()
    }
  })

const main = async (args: string[]): Promise<number> => {
  const [command, ...rest] = args
  if (command === 'keys' && rest[0] === 'generate') return generateKey(rest.slice(1))
  if (command === 'reseal' && rest.length === 0) return reseal()
  const [email, role, ...extra] = rest
  const reason = [role, ...extra].join(' ').trim()
  if (command === 'disable' && email && reason && reason.length <= 500) return setDisabled(email, reason)
  if (command === 'enable' && email && rest.length === 1) return setDisabled(email, null)
  if (command === 'set-role' && email && role?.trim() && extra.length === 0) return setRole(email, role)
  console.error(USAGE)
  return 2
}

process.exitCode = await main(process.argv.slice(2))
