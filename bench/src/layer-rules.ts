/**
 * Which layer of a request a V8 CPU profile sample belongs to (layers.ts). A sample is charged to
 * the innermost frame of its stack that a rule names, so a layer's time includes what it calls
 * (the session lookup's SQLite call, the serialiser's `JSON.stringify`), and a middleware's own
 * line counts only when nothing inside it is named. Samples no frame names are `other`.
 */

export interface Frame {
  functionName: string
  url: string
}

export interface Rule {
  layer: string
  /** The frame's file (its URL ends with one of these) … */
  file?: RegExp
  /** … and, when given, its function name. */
  fn?: RegExp
  /** Claims a sample only when no other rule names a frame of its stack (libraries every layer calls). */
  generic?: true
}

const app = (path: string) => new RegExp(`/apps/todo-api/dist/${path}$`)
const lib = (path: string) => new RegExp(`/packages/auth/dist/${path}$`)
const pkg = (name: string) => new RegExp(`/node_modules/${name}/`)

/** What every layer calls: charged only where no layer is named on the stack. */
const GENERIC: Rule[] = [
  // Loading modules and migrating, before the load starts: left out of every table.
  { layer: 'SQLite (unattributed)', file: pkg('(drizzle-orm|better-sqlite3)'), generic: true },
  { layer: 'Hono core (context, compose, request)', file: /\/hono\/dist\//, generic: true },
  { layer: 'Node adapter (@hono/node-server)', file: pkg('@hono/node-server'), generic: true },
  { layer: 'node:http and the socket', file: /^node:/, generic: true },
  { layer: 'garbage collection', fn: /^\(garbage collector\)$/, generic: true },
  { layer: 'idle', fn: /^\(idle\)$/, generic: true },
]

/** The layers of guarded reads and writes, innermost first where one sits inside another. */
export const REQUEST_RULES: Rule[] = [
  { layer: 'log', file: app('(log|printable)\\.js') },
  {
    layer: 'headers',
    file: app('app\\.js'),
    fn: /^(presetHeaders|queryCredentialHeaders|corsForTrustedOrigins|setHeaders|noStore)$/,
  },
  // The first middleware after issue 34: the log, and the query-credential check after the handler.
  { layer: 'log', file: app('app\\.js'), fn: /^(requestLog|everyRequest)$/ },
  { layer: 'body guard', file: app('app\\.js'), fn: /^bodyGuardOutsideAuth$/ },
  { layer: 'body guard', file: lib('route\\.js'), fn: /^guardedRoute$/ },
  { layer: 'body guard', file: lib('body\\.js') },
  { layer: 'body guard', file: /\/hono\/dist\/middleware\/body-limit\// },
  { layer: 'credential parse', file: lib('credentials\\.js') },
  { layer: 'JWT verify/cache', file: lib('access-token\\.js') },
  { layer: 'JWT verify/cache', file: pkg('jose') },
  { layer: 'session lookup', file: lib('session\\.js'), fn: /^current$/ },
  { layer: 'session lookup', file: lib('(sqlite/sync-store|sqlite/store|store/session-lookup|store/rows)\\.js') },
  { layer: 'policy', file: app('auth\\.js') },
  { layer: 'guard (rest)', file: lib('(guard|session|errors)\\.js') },
  { layer: 'validation', file: pkg('zod') },
  { layer: 'validation', file: /\/@hono\/zod-validator\// },
  { layer: 'validation', file: /\/hono\/dist\/validator\// },
  { layer: 'validation', file: lib('(validation|http/index)\\.js') },
  { layer: 'validation', file: pkg('@hono/zod-openapi'), fn: /^(effectiveHook|mw|mediaTypeGate)$/ },
  { layer: 'validation', file: app('routes/todos\\.js'), fn: /^commonListQuery$/ },
  { layer: 'validation', file: lib('route\\.js'), fn: /^(validateQuery|sentQuery)$/ },
  { layer: 'serialisation', file: app('routes/todos\\.js'), fn: /^todoJson$/ },
  { layer: 'serialisation', fn: /^(toISOString|stringify)$/, file: /^$/ },
  { layer: 'serialisation', file: /\/hono\/dist\/context\.js$/, fn: /^(json|newResponse|#newResponse)$/ },
  { layer: 'handler (todo SQL, mapping)', file: app('db/(sqlite|todo-store)\\.js') },
  { layer: 'handler', file: app('routes/todos\\.js') },
  // The baselines (servers/baseline.ts): bare Hono's user header, and its handlers.
  { layer: 'serialisation', file: /\/bench\/dist\/servers\/baseline\.js$/, fn: /^todoJson$/ },
  { layer: 'credential parse', file: /\/bench\/dist\/servers\/baseline\.js$/, fn: /^(bareUser|latchkeyUser)$/ },
  { layer: 'handler (todo SQL, mapping)', file: /\/bench\/dist\/servers\/baseline\.js$/ },
  { layer: 'routing', file: /\/hono\/dist\/router\// },
  // Loading modules and migrating, before the load starts: left out of every table.
  { layer: 'startup', file: /^node:internal\/modules\// },
  // Below a middleware's `next()`: the chain itself, not the middleware that called it.
  { layer: 'Hono core (context, compose, request)', file: /\/hono\/dist\/compose\.js$/ },
  ...GENERIC,
]

/** The layers of a login: what it adds over the argon2 verify that hono/jwt's login makes too. */
export const LOGIN_RULES: Rule[] = [
  { layer: 'argon2 verify (queue, call)', file: pkg('@node-rs/argon2') },
  { layer: 'argon2 verify (queue, call)', file: lib('password\\.js') },
  { layer: 'limiter', file: lib('(rate-limit|limits)\\.js') },
  { layer: 'events', file: lib('notify\\.js') },
  { layer: 'events', file: app('(auth|printable)\\.js') },
  { layer: 'device cookie', file: lib('device\\.js') },
  { layer: 'refresh cookie', file: lib('cookies\\.js') },
  { layer: 'refresh cookie', file: /\/hono\/dist\/(helper\/cookie|utils\/cookie)/ },
  { layer: 'JWT sign', file: lib('access-token\\.js') },
  { layer: 'JWT sign', file: pkg('jose') },
  { layer: 'user lookup', file: lib('sqlite/(sync-store|store)\\.js'), fn: /^findUserByEmail$/ },
  { layer: 'session insert', file: lib('sqlite/(sync-store|store)\\.js') },
  { layer: 'session insert', file: lib('session\\.js'), fn: /^(start|setCookie)$/ },
  { layer: 'ids, hashes', file: lib('(opaque-token|web)\\.js') },
  { layer: 'log', file: app('log\\.js') },
  { layer: 'headers', file: app('app\\.js'), fn: /^(presetHeaders|queryCredentialHeaders|setHeaders|noStore)$/ },
  { layer: 'log', file: app('app\\.js'), fn: /^(requestLog|everyRequest)$/ },
  { layer: 'body parse, validation', file: pkg('zod') },
  { layer: 'body parse, validation', file: /\/(@hono\/zod-validator|hono\/dist\/validator)\// },
  { layer: 'body parse, validation', file: lib('(body|validation|schemas|http/index)\\.js') },
  { layer: 'login route (rest)', file: lib('routes/[^/]+\\.js') },
  { layer: 'login route (rest)', file: lib('(session|credentials|errors)\\.js') },
  { layer: 'routing', file: /\/hono\/dist\/router\// },
  // Loading modules and migrating, before the load starts: left out of every table.
  { layer: 'startup', file: /^node:internal\/modules\// },
  // Below a middleware's `next()`: the chain itself, not the middleware that called it.
  { layer: 'Hono core (context, compose, request)', file: /\/hono\/dist\/compose\.js$/ },
  ...GENERIC,
]

export const matches = (rule: Rule, frame: Frame): boolean =>
  (rule.file === undefined || rule.file.test(frame.url)) && (rule.fn === undefined || rule.fn.test(frame.functionName))

interface ProfileNode {
  id: number
  callFrame: Frame
  children?: number[]
}
export interface CpuProfile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

/** µs of profile time per layer (`other` for samples no rule names), and each layer's time by the frame it was sampled in. */
export const chargeLayers = (
  profile: CpuProfile,
  rules: Rule[],
): { layers: Map<string, number>; frames: Map<string, Map<string, number>>; total: number } => {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const layerOf = new Map<number, string>()
  const classify = (id: number): string => {
    const known = layerOf.get(id)
    if (known !== undefined) return known
    let layer: string | undefined
    let fallback: string | undefined
    for (let cur: number | undefined = id; cur !== undefined && layer === undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)?.callFrame
      if (!frame) break
      layer = rules.find((r) => !r.generic && matches(r, frame))?.layer
      fallback ??= rules.find((r) => r.generic && matches(r, frame))?.layer
    }
    layer = layer ?? fallback ?? 'other'
    layerOf.set(id, layer)
    return layer
  }
  const layers = new Map<string, number>()
  const frames = new Map<string, Map<string, number>>()
  let total = 0
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0
    total += dt
    const layer = classify(id)
    layers.set(layer, (layers.get(layer) ?? 0) + dt)
    const f = byId.get(id)?.callFrame
    const key = f ? `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|dist)\//, '')}` : '?'
    const mine = frames.get(layer) ?? new Map<string, number>()
    mine.set(key, (mine.get(key) ?? 0) + dt)
    frames.set(layer, mine)
  })
  return { layers, frames, total }
}
