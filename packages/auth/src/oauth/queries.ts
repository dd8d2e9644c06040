/** The social sign-in facet's query conditions and columns, one home for the SQLite and PostgreSQL stores. */
import { and, type Column, desc, eq, gt, isNotNull, ne, type SQL } from 'drizzle-orm'
import { notSealedWith, unspent } from '../store/predicates.js'

interface IdentityColumns {
  id: Column
  userId: Column
  provider: Column
  issuer: Column
  subject: Column
  email: Column
  createdAt: Column
  lastUsedAt: Column
  sealedTokens: Column
}

/** An identity as listed: every column but the sealed tokens. */
export const listedColumns = <T extends IdentityColumns>(t: T): Pick<T, Exclude<keyof IdentityColumns, 'sealedTokens'>> => ({
  id: t.id,
  userId: t.userId,
  provider: t.provider,
  issuer: t.issuer,
  subject: t.subject,
  email: t.email,
  createdAt: t.createdAt,
  lastUsedAt: t.lastUsedAt,
})

/** One of the user's identities. */
export const ownIdentity = (t: IdentityColumns, userId: string, id: string) => and(eq(t.id, id), eq(t.userId, userId)) as SQL

/** The user's other identities than `id`. */
export const otherIdentities = (t: IdentityColumns, userId: string, id: string) => and(eq(t.userId, userId), ne(t.id, id)) as SQL

/** The identity of (issuer, subject). */
export const identityOf = (t: IdentityColumns, issuer: string, subject: string) =>
  and(eq(t.issuer, issuer), eq(t.subject, subject)) as SQL

/** The user's identities at `provider` that keep tokens, and their order: the newest used first. */
export const keptTokens = (t: IdentityColumns, userId: string, provider: string) => ({
  where: and(eq(t.userId, userId), eq(t.provider, provider), isNotNull(t.sealedTokens)) as SQL,
  order: [desc(t.lastUsedAt), desc(t.createdAt)],
})

/** Identities after `afterId` whose kept tokens are sealed under another key than `sealingPrefix` names. */
export const staleTokens = (t: IdentityColumns, sealingPrefix: string, afterId: string | null = null) =>
  and(
    isNotNull(t.sealedTokens),
    notSealedWith(t.sealedTokens, sealingPrefix),
    afterId === null ? undefined : gt(t.id, afterId),
  ) as SQL

/** The identity `id` while its kept tokens are still `sealed`: a re-seal's compare-and-set. */
export const tokensStill = (t: IdentityColumns, id: string, sealed: string) =>
  and(eq(t.id, id), eq(t.sealedTokens, sealed)) as SQL

/** A flow that can still be claimed at `now`. */
export const claimableFlow = (t: { hash: Column; usedAt: Column; expiresAt: Column }, hash: string, now: Date) =>
  and(eq(t.hash, hash), unspent(t, now)) as SQL

/** What claiming a flow answers. */
export const flowColumns = <
  T extends { provider: Column; stateHash: Column; nonce: Column; returnTo: Column; userId: Column; sessionId: Column },
>(
  t: T,
): Pick<T, 'provider' | 'stateHash' | 'nonce' | 'returnTo' | 'userId' | 'sessionId'> => ({
  provider: t.provider,
  stateHash: t.stateHash,
  nonce: t.nonce,
  returnTo: t.returnTo,
  userId: t.userId,
  sessionId: t.sessionId,
})

/** What a sign-in through an identity changes on it. */
export const usedIdentity = (input: { email: string | null; sealedTokens?: string | null; now: Date }) => ({
  email: input.email,
  lastUsedAt: input.now,
  ...(input.sealedTokens === undefined ? {} : { sealedTokens: input.sealedTokens }),
})
