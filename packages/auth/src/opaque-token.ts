/** Random opaque tokens (refresh values, reset tokens) and the hashes stored in their place. */
import { base64url, randomBytes, sha256Hex } from './web.js'

/** 256 random bits, base64url. */
export const opaqueToken = (): string => base64url(randomBytes(32))

/** SHA-256 hex: a random 256-bit value needs no salt or slow hash to be safe at rest. */
export const tokenHash = (token: string): string => sha256Hex(token)
