/** Random opaque tokens (refresh values, reset tokens) and the hashes stored in their place. */
import { createHash, randomBytes } from 'node:crypto'

/** 256 random bits, base64url. */
export const opaqueToken = (): string => randomBytes(32).toString('base64url')

/** SHA-256 hex: a random 256-bit value needs no salt or slow hash to be safe at rest. */
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex')
