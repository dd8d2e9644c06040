/**
 * The second factor (docs/reference/two-factor.md): TOTP and recovery codes, the login challenge
 * every sign-in method's first step may answer with, and their routes.
 */
import { defineFeature } from '../feature.js'
import { resolveTwoFactorOptions } from './options.js'
import { twoFactorRoutes } from './routes/index.js'

export const twoFactorFeature = defineFeature({
  name: 'two-factor',
  options: resolveTwoFactorOptions,
  routes: twoFactorRoutes,
  /** Used or expired login challenges. */
  sweep: { challenges: (store, now, limit) => store.pruneChallenges(now, limit) },
})
