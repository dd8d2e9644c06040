/**
 * Drizzle schema of the PostgreSQL store: the same tables as the SQLite store, plus the shared
 * rate-limit counters; the core tables (`tables.ts`) and each feature's own
 * (`<feature>/postgres-tables.ts`), listed here once. Migrations under `drizzle/postgres` are
 * generated from the same files.
 */

export * from '../api-keys/postgres-tables.js'
export * from '../email-sign-in/postgres-tables.js'
export * from '../oauth/postgres-tables.js'
export * from '../passkeys/postgres-tables.js'
export * from '../two-factor/postgres-tables.js'
export { addCredentialCodes, devices, emailTokens, rateLimits, resetTokens, sessions, users } from './tables.js'
