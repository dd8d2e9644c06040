/** The race suite (races-suite.ts) against a server on PostgreSQL; skipped, saying why, without one. */
import { attackStore } from './db-view.js'
import { racesSuite } from './races-suite.js'

racesSuite(attackStore('postgres'))
