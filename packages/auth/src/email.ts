/**
 * Email canonicalisation: the one form of an address used for storage, lookup and limit keys. An
 * address typed in full width (`ａｄａ＠ｅｘａｍｐｌｅ．ｃｏｍ`) is its ASCII form
 * (docs/reference/conventions.md#emails).
 */

/** Trimmed, NFKC-normalised, lower-cased, then validated: the form used for storage, lookup and limits. */
export const canonicalEmail = (email: string): string => email.trim().normalize('NFKC').toLowerCase()
