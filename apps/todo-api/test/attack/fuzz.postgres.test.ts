/** The fuzz suite (fuzz-suite.ts) against a server on PostgreSQL; skipped, saying why, without one. */
import { attackStore } from './db-view.js'
import { fuzzSuite } from './fuzz-suite.js'

fuzzSuite(attackStore('postgres'))
