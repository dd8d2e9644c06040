/**
 * The part of `node:sqlite` (Deno; Node ≥ 22.5) this subpath uses, for type-checking against
 * @types/node 20, which does not declare the module.
 */
declare module 'node:sqlite' {
  export interface StatementSync {
    run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint }
    all(...params: unknown[]): unknown[]
    get(...params: unknown[]): unknown
    setReturnArrays(enabled: boolean): void
  }
  export class DatabaseSync {
    constructor(path: string, options?: { open?: boolean })
    exec(sql: string): void
    prepare(sql: string): StatementSync
    close(): void
    readonly isTransaction: boolean
  }
}
