/**
 * The scenarios of issue 5 (and 9, signing keys: issue 32), one file each (1 and 2 together, 3 to 5 together: they share
 * their servers). Each starts what it needs, drives it through the load generator, and returns
 * table rows (ratio against its baseline, target, verdict) plus the raw numbers for the JSON file.
 */
export { apiKeys } from './api-keys.js'
export { limiterMemory } from './limiter-memory.js'
export { logins } from './logins.js'
export { runtimes } from './runtimes.js'
export { scale } from './scale.js'
export {
  bearer,
  interleaved,
  medianCpu,
  medianMainCpu,
  medianRps,
  type Outcome,
  prepareMain,
  type Row,
  readTodos,
  userHeader,
  writeTodo,
} from './shared.js'
export { signingKeys } from './signing-keys.js'
export { signups } from './signups.js'
export { throughput } from './throughput.js'
