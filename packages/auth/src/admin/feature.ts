/** The operators' API (docs/guide/operators.md): on when `admin` names the operators' policy. */
import type { Policy } from '../domain.js'
import { defineFeature, type FeatureRouteDeps } from '../feature.js'
import type { UserRecord } from '../store/types.js'
import { resolveAdminOption } from './options.js'
import { adminRoutes } from './routes/index.js'

export const adminFeature = defineFeature({
  name: 'admin',
  options: resolveAdminOption,
  routes: <U extends UserRecord>(deps: FeatureRouteDeps<U>) => {
    const { admin } = deps.options
    if (admin) adminRoutes({ ...deps, admin, policy: deps.policies[admin.policy] as Policy<U> })
  },
})
