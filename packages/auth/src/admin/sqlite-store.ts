/** The operators' facet (`admin/store.ts`) on SQLite, for every driver (`sqlite/db.ts`). */
import { eq, inArray, sql } from 'drizzle-orm'
import { changes, type SqliteDb, type SqliteSteps } from '../sqlite/db.js'
import { revokeSteps } from '../sqlite/revoke.js'
import * as schema from '../sqlite/schema.js'
import { identities } from '../sqlite/schema.js'
import { users } from '../sqlite/tables.js'
import { toUser } from '../store/rows.js'
import type { UserRecord } from '../store/users.js'
import { factColumns, newestFirst, type SearchKeys, searchWhere, toFacts, withIdentities } from './queries.js'
import type { AdminStore, AdminUserFacts, LiveCutoffs } from './store.js'

/** The expressions of the search's indexes (`sqlite/schema.ts`); SQLite's `lower()` folds ASCII letters only. */
const keys: SearchKeys = { email: sql`${users.email}`, name: sql`lower(${users.name})` }

export const sqliteAdminStore = (db: SqliteDb, steps: SqliteSteps): AdminStore<UserRecord> => {
  const select = (live: LiveCutoffs) => db.select({ user: users, ...factColumns(schema, live) }).from(users)
  /** The accounts' providers, in one indexed read for the page. */
  const linked = (facts: AdminUserFacts<UserRecord>[]) =>
    withIdentities(
      facts,
      async (userIds) =>
        await db
          .select({ userId: identities.userId, provider: identities.provider })
          .from(identities)
          .where(inArray(identities.userId, userIds))
          .all(),
    )
  return {
    async searchUsers({ prefix, after, limit, live }) {
      const rows = await select(live)
        .where(searchWhere(schema, keys, prefix, after))
        .orderBy(...newestFirst(schema))
        .limit(limit)
        .all()
      return linked(rows.map((row) => toFacts(row, toUser(row.user))))
    },

    async findAdminUser(userId, live) {
      const row = await select(live).where(eq(users.id, userId)).get()
      return row ? ((await linked([toFacts(row, toUser(row.user))]))[0] ?? null) : null
    },

    async setUserDisabled({ userId, disabledAt, revoke }) {
      const revocation = revokeSteps(db, { userId, revoke }, undefined)
      const [revoked, ...rest] = await steps.durable(() =>
        steps.atomic([
          revocation.sessions,
          ...revocation.deletes,
          db
            .update(users)
            .set({ disabledAt, ...revocation.user })
            .where(eq(users.id, userId)),
        ]),
      )
      return changes(rest.at(-1)) === 1 ? (revoked as { id: string }[]).map((row) => row.id) : null
    },

    async revokeUser(userId, revoke) {
      const revocation = revokeSteps(db, { userId, revoke }, undefined)
      const [revoked] = await steps.durable(() =>
        steps.atomic([revocation.sessions, ...revocation.deletes, revocation.userUpdate]),
      )
      return (revoked as { id: string }[]).map((row) => row.id)
    },

    async markEmailVerified(userId) {
      return changes(await db.update(users).set({ emailVerified: true }).where(eq(users.id, userId)).run()) === 1
    },
  }
}
