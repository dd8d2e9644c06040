/**
 * Email canonicalisation: the one form of an address used for storage, lookup and limit keys, and
 * the check that normalising it never moves where the address splits.
 */

/** Trimmed, NFKC-normalised, lower-cased, then validated: the form used for storage, lookup and limits. */
export const canonicalEmail = (email: string): string => email.trim().normalize('NFKC').toLowerCase()

/**
 * `false` when NFKC would turn a character into an address's punctuation (`＠` into `@`, `．` into
 * `.`, `，` into `,`): normalising may change letters and digits, never where an address splits,
 * so the address that is checked and mailed is the one that was typed (docs/reference/conventions.md#emails).
 */
export const keepsItsPunctuation = (email: string): boolean => {
  for (const ch of email) if (ch > '\u007f' && /[^\p{L}\p{M}\p{N}]/u.test(ch.normalize('NFKC'))) return false
  return true
}
