/** The race suite (races-suite.ts) against a server on SQLite. */
import { attackStore } from './db-view.js'
import { racesSuite } from './races-suite.js'

racesSuite(attackStore('sqlite'))
