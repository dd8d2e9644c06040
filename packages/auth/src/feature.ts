/**
 * What a feature is to the core (CONTRIBUTING.md, "Adding a feature"): its options and the routes
 * it declares when its options turn it on (`feature.ts`, listed in `features.ts`), and its store
 * facet written once per database family (`facet.ts`, listed in `feature-facets.ts`). The facets
 * have a list of their own so that a store's module graph holds no route: `@latchkey/auth/sqlite`
 * and the other stores load only store code.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Policy } from './domain.js'
import type { LimitCounter } from './limit-counter.js'
import type { PgDb } from './postgres/db.js'
import type { RouteDeps } from './route-deps.js'
import type { SqliteDb, SqliteSteps } from './sqlite/db.js'
import type { Store, UserRecord } from './store/types.js'

/** What a feature's routes are given: the route dependencies, the routes' app, and what the core keeps for itself. */
export interface FeatureRouteDeps<U extends UserRecord> extends RouteDeps<U> {
  /** The `/auth` app, for a security scheme the feature documents. */
  app: OpenAPIHono
  limits: LimitCounter
  /** The registered policies, by name. */
  policies: Record<string, Policy<U>>
}

/** One batch of a feature's sweep: deletes at most `limit` of its rows dead at `now`; answers how many went. */
export type SweepBatch = (store: Store, now: Date, limit: number) => Promise<number>

export interface Feature<Option, Resolved extends object, S extends string = never> {
  /** The folder's name. */
  name: string
  /** Checks the feature's options once and fills in defaults; throws a `TypeError` naming the bad one. */
  options: (options: Option) => Resolved
  /** Declares the feature's routes, in the list's order; a feature its options leave off declares none. */
  routes: <U extends UserRecord>(deps: FeatureRouteDeps<U>) => void
  /**
   * What the sweep deletes of the feature's rows (docs/reference/operations.md#the-sweep), by the
   * name its count has in the sweep's answer; each runs batch after batch until one deletes fewer
   * than `limit`, whether the feature's options are on or off (rows outlive a switched-off option).
   */
  sweep?: Record<S, SweepBatch>
}

/** A feature's record, typed by what it declares. */
export const defineFeature = <Option, Resolved extends object, S extends string = never>(
  feature: Feature<Option, Resolved, S>,
): Feature<Option, Resolved, S> => feature

/** A feature's store facet on each database family: SQLite (better-sqlite3, `bun:sqlite`, `node:sqlite`, D1) and PostgreSQL. */
export interface Facet<F extends object> {
  sqlite: (db: SqliteDb, steps: SqliteSteps) => F
  postgres: (db: PgDb) => F
}

/** A feature's facet record, typed by the facet. */
export const defineFacet = <F extends object>(facet: Facet<F>): Facet<F> => facet

/** The intersection of a union's members: what a list of records adds up to. */
export type Intersection<T> = (T extends unknown ? (part: T) => void : never) extends (part: infer I) => void ? I : never
