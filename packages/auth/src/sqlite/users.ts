/** The users facet (`store/users.ts`) on SQLite, for every driver (`sqlite/db.ts`). */
import { eq, sql } from 'drizzle-orm'
import { versionIs } from '../store/predicates.js'
import { toUser, withHash } from '../store/rows.js'
import type { UserRecord, UserStore } from '../store/users.js'
import { changes, currentVersion, type SqliteDb, type SqliteSteps } from './db.js'
import { revokeSteps } from './revoke.js'
import { users } from './schema.js'

export const sqliteUsers = (db: SqliteDb, steps: SqliteSteps): UserStore<UserRecord> => {
  /** A new user's columns, each a placeholder; `profile` only when the signup has one (else the column's NULL). */
  const newUser = (profile: boolean) =>
    db
      .insert(users)
      .values({
        id: sql.placeholder('id'),
        name: sql.placeholder('name'),
        email: sql.placeholder('email'),
        passwordHash: sql.placeholder('passwordHash'),
        createdAt: sql.placeholder('createdAt'),
        ...(profile ? { profile: sql.placeholder('profile') } : {}),
      })
      .onConflictDoNothing({ target: users.email })
      .returning()
      .prepare()
  // Every login and every signup: built and prepared once.
  const hot = steps.prepared(() => ({
    userByEmail: db
      .select()
      .from(users)
      .where(eq(users.email, sql.placeholder('email')))
      .prepare(),
    createUser: newUser(false),
    createUserWithProfile: newUser(true),
  }))
  return {
    async createUser({ id, name, email, passwordHash, createdAt, profile }) {
      const values = { id, name, email, passwordHash, createdAt }
      const [row] = await (profile == null
        ? hot().createUser.all(values)
        : hot().createUserWithProfile.all({ ...values, profile }))
      return row ? toUser(row) : null
    },

    async findUserByEmail(email) {
      return withHash(await hot().userByEmail.get({ email }))
    },

    async findUserById(id) {
      return withHash(await db.select().from(users).where(eq(users.id, id)).get())
    },

    async updatePasswordHash(userId, passwordHash, credentialsVersion) {
      const current = versionIs(users, userId, credentialsVersion)
      return changes(await db.update(users).set({ passwordHash }).where(current).run()) === 1
    },

    async replacePassword({ userId, passwordHash, credentialsVersion, keepSessionId, revoke }) {
      const current = versionIs(users, userId, credentialsVersion)
      const revocation = revokeSteps(db, { userId, revoke, keepSessionId }, currentVersion(db, userId, credentialsVersion))
      const [, ...results] = await steps.durable(() =>
        steps.atomic([
          revocation.sessions,
          ...revocation.deletes,
          db
            .update(users)
            .set({ passwordHash, ...revocation.user })
            .where(current),
        ]),
      )
      return changes(results.at(-1)) === 1
    },

    async setRole(email, role) {
      return changes(await db.update(users).set({ role }).where(eq(users.email, email)).run()) === 1
    },

    async deleteUser(userId, credentialsVersion) {
      // Sessions and tokens go with the user (ON DELETE CASCADE, in the same statement), counted by
      // RETURNING: D1's `changes` counts the cascaded rows too.
      const current = versionIs(users, userId, credentialsVersion)
      const deleted = await steps.durable(() => db.delete(users).where(current).returning({ id: users.id }).all())
      return deleted.length === 1
    },
  }
}
