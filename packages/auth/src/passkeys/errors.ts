/** The passkey routes' own answers that more than one route gives. */
import { AuthError } from '../errors.js'

/** 404 for a passkey id that is not one of the caller's (rename, remove): never 403. */
export const passkeyNotFound = () => new AuthError('not_found', { detail: 'You have no passkey with this id.' })
