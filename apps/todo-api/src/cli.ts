/**
 * Command line for operators. Uses DATABASE_URL like the server; exits 2 on a usage error.
 *
 * `set-role <email> <role>`: sets the free-form role that policies read (`admin` passes the
 * reference app's admin policy); exits 1 when no account has that email.
 *
 *   pnpm --filter @latchkey/todo-api cli set-role ada@example.com admin
 *
 * `reseal`: runs the sweep once with AUTH_SECRET and AUTH_ENCRYPTION_KEY as the server reads
 * them, which seals again under the first key whatever another key sealed, and prints how many
 * sealed values still name an old key; exits 0 when none does (the old key may go), 1 otherwise.
 *
 *   AUTH_SECRET=… AUTH_ENCRYPTION_KEY=<new>,<old> pnpm --filter @latchkey/todo-api cli reseal
 */
import { canonicalEmail, createAuth } from '@latchkey/auth'
import { ConfigError, describeDatabase, parseDatabaseUrl } from './config.js'
import { type AppDatabase, openDatabase } from './db/index.js'

const USAGE = 'usage: cli set-role <email> <role> | cli reseal'

/** The sweep once, over the keys the server is given; answers the exit status. */
const reseal = async (db: AppDatabase): Promise<number> => {
  const list = (name: string) => process.env[name]?.split(',').filter((s) => s !== '') ?? []
  const encryptionKeys = list('AUTH_ENCRYPTION_KEY')
  const auth = createAuth({
    secret: list('AUTH_SECRET'),
    ...(encryptionKeys.length > 0 ? { encryptionKeys } : {}),
    store: db.authStore,
    sendMail: () => {},
    prune: { intervalSeconds: 0 },
    log: (line) => console.error(`cli: ${line}`),
  })
  try {
    const { resealed } = await auth.prune()
    const left = await auth.sealedUnderOldKeys()
    console.log(`sealed again under the first key: ${resealed}; still under an old key: ${left}`)
    return left === 0 ? 0 : 1
  } finally {
    await auth.close()
  }
}

const main = async (args: string[]): Promise<number> => {
  const [command, email = '', role = '', ...rest] = args
  const setRole = command === 'set-role' && email !== '' && role.trim() !== '' && rest.length === 0
  if (!setRole && !(command === 'reseal' && args.length === 1)) {
    console.error(USAGE)
    return 2
  }
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
    if (!setRole)
      return await reseal(db).catch((err: unknown) => {
        // createAuth names the bad option (a missing or weak secret or key).
        console.error(`cli: ${err instanceof Error ? err.message : String(err)}`)
        return 2
      })
    const canonical = canonicalEmail(email)
    if (!(await db.authStore.setRole(canonical, role.trim()))) {
      console.error(`cli: no account with the email ${canonical}`)
      return 1
    }
    console.log(`role of ${canonical} is now "${role.trim()}"`)
    return 0
  } finally {
    await db.close()
  }
}

process.exitCode = await main(process.argv.slice(2))
