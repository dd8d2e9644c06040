/** The users facet (`store/users.ts`) on PostgreSQL (READ COMMITTED: conditional `UPDATE … RETURNING` decides each single use; row locks in the store's lock order, `postgres/db.ts`). */
import { eq, sql } from 'drizzle-orm'
import { versionIs } from '../store/predicates.js'
import { toUser, withHash } from '../store/rows.js'
import type { UserRecord, UserStore } from '../store/users.js'
import type { PgDb } from './db.js'
import { revokePostgres } from './revoke.js'
import { users } from './schema.js'

export const postgresUsers = (db: PgDb): UserStore<UserRecord> => {
  // Every login: a named prepared statement, parsed and planned once per connection
  // (docs/PERFORMANCE.md). Behind PgBouncer in transaction mode this needs max_prepared_statements.
  const userByEmail = db
    .select()
    .from(users)
    .where(eq(users.email, sql.placeholder('email')))
    .prepare('latchkey_user_by_email')
  return {
    async createUser(input) {
      const [row] = await db.insert(users).values(input).onConflictDoNothing({ target: users.email }).returning()
      return row ? toUser(row) : null
    },

    async findUserByEmail(email) {
      const [row] = await userByEmail.execute({ email })
      return withHash(row)
    },

    async findUserById(id) {
      const [row] = await db.select().from(users).where(eq(users.id, id))
      return withHash(row)
    },

    async updatePasswordHash(userId, passwordHash, credentialsVersion) {
      const rows = await db
        .update(users)
        .set({ passwordHash })
        .where(versionIs(users, userId, credentialsVersion))
        .returning({ id: users.id })
      return rows.length === 1
    },

    async replacePassword({ userId, passwordHash, credentialsVersion, keepSessionId, revoke }) {
      return db.transaction(async (tx) => {
        // The conditional UPDATE takes the user's row lock first (users → reset tokens → sessions).
        const replaced = await tx
          .update(users)
          .set({ passwordHash })
          .where(versionIs(users, userId, credentialsVersion))
          .returning({ id: users.id })
        if (replaced.length === 0) return false
        await revokePostgres(tx, { userId, revoke, keepSessionId })
        return true
      })
    },

    async setRole(email, role) {
      const rows = await db.update(users).set({ role }).where(eq(users.email, email)).returning({ id: users.id })
      return rows.length === 1
    },

    async deleteUser(userId, credentialsVersion) {
      // Sessions and tokens go with the user (ON DELETE CASCADE), in the same statement.
      const rows = await db
        .delete(users)
        .where(versionIs(users, userId, credentialsVersion))
        .returning({ id: users.id })
      return rows.length === 1
    },
  }
}
