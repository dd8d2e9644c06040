/**
 * Command line for operators. `set-role <email> <role>`: sets the free-form role that policies
 * read (`admin` passes the reference app's admin policy). Uses DATABASE_URL like the server;
 * exits 1 when no account has that email, 2 on a usage error.
 *
 *   pnpm --filter @latchkey/todo-api cli set-role ada@example.com admin
 */
import { canonicalEmail } from '@latchkey/auth'
import { ConfigError, describeDatabase, parseDatabaseUrl } from './config.js'
import { type AppDatabase, openDatabase } from './db/index.js'

const USAGE = 'usage: cli set-role <email> <role>'

const main = async (args: string[]): Promise<number> => {
  const [command, email, role, ...rest] = args
  if (command !== 'set-role' || !email || !role?.trim() || rest.length > 0) {
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
