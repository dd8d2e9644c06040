/**
 * The part of Bun's `bun:sqlite` this subpath uses, for type-checking on Node (where `bun-types`
 * is not installed). On Bun, `@types/bun` declares the whole module.
 */
declare module 'bun:sqlite' {
  export class Database {
    constructor(filename?: string, options?: { create?: boolean; readonly?: boolean; strict?: boolean })
    exec(sql: string): void
    query(sql: string): { get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] }
    prepare(sql: string): {
      get(...params: unknown[]): unknown
      all(...params: unknown[]): unknown[]
      run(...params: unknown[]): unknown
    }
    close(): void
  }
}
