/**
 * Query conditions the SQLite store writes its own way, internal to the store: not part of the
 * public `@latchkey/auth/sqlite/schema`, which holds tables only. Conditions both dialects share
 * are in `store/predicates.ts`.
 */
import { type Placeholder, type SQL, sql } from 'drizzle-orm'
import { sessions } from './schema.js'

/**
 * The user's sessions past the `keep` most recently used (latest `refreshed_at`, then the greater
 * id), for `trimSessions` of both SQLite stores. SQLite has no OFFSET without LIMIT (-1: none).
 */
export const trimmedSessions = (userId: string | Placeholder, keep: number | Placeholder): SQL =>
  sql`${sessions.userId} = ${userId} and ${sessions.id} in (select ${sessions.id} from ${sessions} where ${sessions.userId} = ${userId}
    order by ${sessions.refreshedAt} desc, ${sessions.id} desc limit -1 offset ${keep})`
