/** Passkeys (docs/reference/passkeys.md): WebAuthn registration, sign-in and second step, on when `passkeys` is set. */
import { defineFeature } from '../feature.js'
import { resolvePasskeysOption } from './options.js'
import { passkeyRoutes } from './routes/index.js'

export const passkeysFeature = defineFeature({
  name: 'passkeys',
  options: resolvePasskeysOption,
  routes: (deps) => {
    if (deps.passkeys) passkeyRoutes({ ...deps, passkeys: deps.passkeys })
  },
  /** Used or expired WebAuthn challenges of passkey ceremonies, abandoned ones too. */
  sweep: { passkeyChallenges: (store, now, limit) => store.prunePasskeyChallenges(now, limit) },
})
