/** The users facet (`store/users.ts`) on Cloudflare D1 (every atomic step one guarded batch, `d1/db.ts`). */
import { eq } from 'drizzle-orm'
import { users } from '../sqlite/schema.js'
import { versionIs } from '../store/predicates.js'
import { toUser, withHash } from '../store/rows.js'
import type { UserRecord, UserStore } from '../store/users.js'
import { changes, currentVersion, type D1Db } from './db.js'
import { revokeD1 } from './revoke.js'

export const d1Users = (db: D1Db): UserStore<UserRecord> => ({
  async createUser(input) {
    const [row] = await db.insert(users).values(input).onConflictDoNothing({ target: users.email }).returning()
    return row ? toUser(row) : null
  },

  async findUserByEmail(email) {
    return withHash(await db.select().from(users).where(eq(users.email, email)).get())
  },

  async findUserById(id) {
    return withHash(await db.select().from(users).where(eq(users.id, id)).get())
  },

  async updatePasswordHash(userId, passwordHash, credentialsVersion) {
    const current = versionIs(users, userId, credentialsVersion)
    return changes(await db.update(users).set({ passwordHash }).where(current).run()) === 1
  },

  async replacePassword({ userId, passwordHash, credentialsVersion, keepSessionId, revoke }) {
    const revocation = revokeD1(db, { userId, revoke, keepSessionId }, currentVersion(db, userId, credentialsVersion))
    const [, ...results] = await db.batch([
      revocation.sessions,
      ...revocation.deletes,
      db
        .update(users)
        .set({ passwordHash, ...revocation.user })
        .where(versionIs(users, userId, credentialsVersion)),
    ])
    return changes(results.at(-1)) === 1
  },

  async setRole(email, role) {
    return changes(await db.update(users).set({ role }).where(eq(users.email, email)).run()) === 1
  },

  async deleteUser(userId, credentialsVersion) {
    // Sessions and tokens go with the user (ON DELETE CASCADE; D1 enforces foreign keys).
    const current = versionIs(users, userId, credentialsVersion)
    // Counted by RETURNING: D1's `changes` counts the cascaded rows too.
    return (await db.delete(users).where(current).returning({ id: users.id })).length === 1
  },
})
