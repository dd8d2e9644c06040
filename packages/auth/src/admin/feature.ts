/** The operators' API (docs/guide/operators.md): on when `admin` names the operators' policy. */
import type { Policy } from '../domain.js'
import { defineFeature, type FeatureRouteDeps } from '../feature.js'
import type { UserRecord } from '../store/types.js'
import { resolveAdminOption } from './options.js'
import { postgresAdminStore } from './postgres-store.js'
import { adminRoutes } from './routes/index.js'
import { sqliteAdminStore } from './sqlite-store.js'

export const adminFeature = defineFeature({
  name: 'admin',
  options: resolveAdminOption,
  store: { sqlite: sqliteAdminStore, postgres: postgresAdminStore },
  routes: <U extends UserRecord>(deps: FeatureRouteDeps<U>) => {
    const { admin } = deps.options
    if (admin) adminRoutes({ ...deps, admin, policy: deps.policies[admin.policy] as Policy<U> })
  },
})
