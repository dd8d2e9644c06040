/** The fuzz suite (fuzz-suite.ts) against a server on SQLite. */
import { attackStore } from './db-view.js'
import { fuzzSuite } from './fuzz-suite.js'

fuzzSuite(attackStore('sqlite'))
