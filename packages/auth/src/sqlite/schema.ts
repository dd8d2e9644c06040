/**
 * Drizzle schema of the SQLite store, tables only (the public `@latchkey/auth/sqlite/schema`): the
 * core tables (`tables.ts`) and each feature's own (`<feature>/sqlite-tables.ts`), listed here once.
 * Migrations under `drizzle/sqlite` are generated from the same files; the store's own query
 * conditions are in `queries.ts`.
 */

export * from '../api-keys/sqlite-tables.js'
export * from '../email-sign-in/sqlite-tables.js'
export * from '../oauth/sqlite-tables.js'
export * from '../passkeys/sqlite-tables.js'
export * from '../two-factor/sqlite-tables.js'
export { addCredentialCodes, devices, emailTokens, resetTokens, sessions, users } from './tables.js'
