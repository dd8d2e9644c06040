/**
 * The checks every slice of `createAuth`'s options shares: the error that names the bad option,
 * and the numbers (seconds, counts) an option may hold. Each slice resolves its own options
 * beside what they configure; `options.ts` puts them together.
 */

/** Refuses the option: a `TypeError` that names it, thrown when the app is wired. */
export const fail = (option: string, why: string): never => {
  throw new TypeError(`createAuth: option \`${option}\` ${why}`)
}

/** A number of seconds above 0 (or 0 too, with `allowZero`); `fallback` when not given. */
export const positive = (option: string, value: number | undefined, fallback: number, allowZero = false): number => {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) fail(option, 'must be a positive number of seconds')
  return value
}

/** A whole number of at least 1; `fallback` when not given. */
export const positiveInteger = (option: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < 1) fail(option, 'must be a positive integer')
  return value
}
