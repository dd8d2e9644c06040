/**
 * The operators' facet (`admin/store.ts`) on PostgreSQL: each write one transaction that takes the
 * user's row lock first, in the store's lock order (`postgres/store.ts`).
 */
import { eq, inArray, sql } from 'drizzle-orm'
import type { PgDb } from '../postgres/db.js'
import { revokePostgres } from '../postgres/revoke.js'
import * as schema from '../postgres/schema.js'
import { identities } from '../postgres/schema.js'
import { users } from '../postgres/tables.js'
import { toUser } from '../store/rows.js'
import type { UserRecord } from '../store/users.js'
import { factColumns, newestFirst, type SearchKeys, searchWhere, toFacts, withIdentities } from './queries.js'
import type { AdminStore, AdminUserFacts, LiveCutoffs } from './store.js'

/** The expressions of the search's indexes (`postgres/schema.ts`), compared byte by byte whatever the collation. */
const keys: SearchKeys = { email: sql`(${users.email} collate "C")`, name: sql`(lower(${users.name}) collate "C")` }

export const postgresAdminStore = (db: PgDb): AdminStore<UserRecord> => {
  const select = (live: LiveCutoffs) => db.select({ user: users, ...factColumns(schema, live) }).from(users)
  /** The accounts' providers, in one indexed read for the page. */
  const linked = (facts: AdminUserFacts<UserRecord>[]) =>
    withIdentities(facts, (userIds) =>
      db
        .select({ userId: identities.userId, provider: identities.provider })
        .from(identities)
        .where(inArray(identities.userId, userIds)),
    )
  return {
    async searchUsers({ prefix, after, limit, live }) {
      const rows = await select(live)
        .where(searchWhere(schema, keys, prefix, after))
        .orderBy(...newestFirst(schema))
        .limit(limit)
      return linked(rows.map((row) => toFacts(row, toUser(row.user))))
    },

    async findAdminUser(userId, live) {
      const [row] = await select(live).where(eq(users.id, userId))
      return row ? ((await linked([toFacts(row, toUser(row.user))]))[0] ?? null) : null
    },

    async setUserDisabled({ userId, disabledAt, revoke }) {
      return db.transaction(async (tx) => {
        // The user's row lock first (users → tokens → sessions), then the revocation.
        const updated = await tx.update(users).set({ disabledAt }).where(eq(users.id, userId)).returning({ id: users.id })
        if (updated.length === 0) return null
        return revokePostgres(tx, { userId, revoke })
      })
    },

    async revokeUser(userId, revoke) {
      return db.transaction(async (tx) => {
        await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update')
        return revokePostgres(tx, { userId, revoke })
      })
    },

    async markEmailVerified(userId) {
      const rows = await db.update(users).set({ emailVerified: true }).where(eq(users.id, userId)).returning({ id: users.id })
      return rows.length === 1
    },
  }
}
