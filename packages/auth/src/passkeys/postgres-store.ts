/**
 * The passkey facet on PostgreSQL. Under READ COMMITTED a conditional `UPDATE … RETURNING` decides
 * each single-use step; deleting a passkey locks its user's row first (the store's lock order:
 * users before their rows), so two concurrent removals cannot both take the last way to sign in.
 */
import { and, asc, eq, ne, or, sql } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { postgresDeleteBatch } from '../postgres/prune.js'
import type * as schema from '../postgres/schema.js'
import { identities } from '../postgres/schema.js'
import { users } from '../postgres/tables.js'
import { spentOrExpired } from '../store/predicates.js'
import { passkeyChallenges, passkeys } from './postgres-tables.js'
import { boundColumns, claimablePasskeyChallenge, ownPasskey } from './queries.js'
import type { PasskeyRecord, PasskeyStore } from './store.js'

const toPasskey = (row: typeof passkeys.$inferSelect): PasskeyRecord => ({ ...row })

export const postgresPasskeyStore = (db: NodePgDatabase<typeof schema>): PasskeyStore => ({
  async createPasskey(input) {
    const rows = await db.insert(passkeys).values(input).onConflictDoNothing().returning({ id: passkeys.id })
    return rows.length === 1
  },

  async findPasskey(id) {
    const [row] = await db.select().from(passkeys).where(eq(passkeys.id, id))
    return row ? toPasskey(row) : null
  },

  async listPasskeys(userId) {
    const rows = await db
      .select()
      .from(passkeys)
      .where(eq(passkeys.userId, userId))
      .orderBy(asc(passkeys.createdAt), asc(passkeys.id))
    return rows.map(toPasskey)
  },

  async renamePasskey(userId, id, name) {
    const [row] = await db
      .update(passkeys)
      .set({ name })
      .where(ownPasskey(passkeys, userId, id))
      .returning()
    return row ? toPasskey(row) : null
  },

  deletePasskey: (userId, id) =>
    db.transaction(async (tx) => {
      const [owner] = await tx
        .select({ passwordHash: users.passwordHash })
        .from(users)
        .where(eq(users.id, userId))
        .for('no key update')
      const [kept] = await tx
        .select({ id: passkeys.id })
        .from(passkeys)
        .where(ownPasskey(passkeys, userId, id))
      if (!owner || !kept) return 'not_found'
      const [other] = await tx
        .select({ id: passkeys.id })
        .from(passkeys)
        .where(and(eq(passkeys.userId, userId), ne(passkeys.id, id)))
        .limit(1)
      const [identity] = await tx.select({ id: identities.id }).from(identities).where(eq(identities.userId, userId)).limit(1)
      if (owner.passwordHash === '' && !other && !identity) return 'last_sign_in'
      await tx.delete(passkeys).where(eq(passkeys.id, id))
      return 'deleted'
    }),

  async usePasskey({ id, counter, backedUp, now }) {
    const rows = await db
      .update(passkeys)
      .set({ counter, backedUp, lastUsedAt: now })
      .where(
        and(
          eq(passkeys.id, id),
          or(sql`${passkeys.counter} < ${counter}`, and(eq(passkeys.counter, 0), sql`${counter}::bigint = 0`)),
        ),
      )
      .returning({ id: passkeys.id })
    return rows.length === 1
  },

  async createPasskeyChallenge(input, now) {
    await db.delete(passkeyChallenges).where(spentOrExpired(passkeyChallenges, now))
    await db.insert(passkeyChallenges).values(input)
  },

  async findPasskeyChallenge(hash, purpose, now) {
    const [live] = await db
      .select(boundColumns(passkeyChallenges))
      .from(passkeyChallenges)
      .where(claimablePasskeyChallenge(passkeyChallenges, hash, purpose, now))
    return live ?? null
  },

  async claimPasskeyChallenge(hash, purpose, now) {
    const [claimed] = await db
      .update(passkeyChallenges)
      .set({ usedAt: now })
      .where(claimablePasskeyChallenge(passkeyChallenges, hash, purpose, now))
      .returning(boundColumns(passkeyChallenges))
    return claimed ?? null
  },

  prunePasskeyChallenges: (now, limit) =>
    postgresDeleteBatch(db, passkeyChallenges, passkeyChallenges.hash, spentOrExpired(passkeyChallenges, now), limit),
})
