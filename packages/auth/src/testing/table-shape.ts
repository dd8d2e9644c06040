/**
 * A dialect-neutral description of a Drizzle table, so a test can check that the SQLite and the
 * PostgreSQL definitions of one table cannot drift apart: the same columns, in the same order,
 * holding the same kind of value, with the same nullability, keys, defaults, indexes and
 * foreign keys. Column types are compared by what they hold (`string`, `date`, `boolean`,
 * `number`), not by their SQL spelling, which the dialects differ in by design.
 *
 * @example
 * expect(tableShape(sqliteSchema.todos)).toEqual(tableShape(pgSchema.todos))
 */
import { type Column, getTableName, is } from 'drizzle-orm'
import { PgTable, getTableConfig as pgConfig } from 'drizzle-orm/pg-core'
import { type SQLiteTable, getTableConfig as sqliteConfig } from 'drizzle-orm/sqlite-core'

export interface TableShape {
  name: string
  columns: { name: string; holds: string; notNull: boolean; primaryKey: boolean; unique: boolean; hasDefault: boolean }[]
  indexes: { name: string; columns: string[]; unique: boolean }[]
  foreignKeys: { columns: string[]; references: string; onDelete: string | undefined }[]
}

const columnShape = (c: Column) => ({
  name: c.name,
  holds: c.dataType,
  notNull: c.notNull,
  primaryKey: c.primary,
  unique: c.isUnique,
  hasDefault: c.hasDefault,
})

const nameOf = (c: unknown): string => (c as { name: string }).name

export const tableShape = (table: SQLiteTable | PgTable): TableShape => {
  const cfg = is(table, PgTable) ? pgConfig(table) : sqliteConfig(table)
  return {
    name: getTableName(table),
    columns: cfg.columns.map((c) => columnShape(c as Column)),
    indexes: cfg.indexes
      .map((i) => ({ name: i.config.name ?? '', columns: i.config.columns.map(nameOf), unique: i.config.unique ?? false }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    foreignKeys: cfg.foreignKeys.map((fk) => {
      const ref = fk.reference()
      return {
        columns: ref.columns.map(nameOf),
        references: `${getTableName(ref.foreignTable)}(${ref.foreignColumns.map(nameOf).join(',')})`,
        onDelete: fk.onDelete,
      }
    }),
  }
}
