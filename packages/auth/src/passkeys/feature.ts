/** Passkeys (docs/reference/passkeys.md): WebAuthn registration, sign-in and second step, on when `passkeys` is set. */
import { defineFeature } from '../feature.js'
import { resolvePasskeysOption } from './options.js'
import { postgresPasskeyStore } from './postgres-store.js'
import { passkeyRoutes } from './routes/index.js'
import { sqlitePasskeyStore } from './sqlite-store.js'

export const passkeysFeature = defineFeature({
  name: 'passkeys',
  options: resolvePasskeysOption,
  store: { sqlite: (db) => sqlitePasskeyStore(db), postgres: postgresPasskeyStore },
  routes: (deps) => {
    if (deps.passkeys) passkeyRoutes({ ...deps, passkeys: deps.passkeys })
  },
})
