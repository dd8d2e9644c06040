/**
 * The list route's common query, decided without zod, against the schema it stands in for: on
 * every query string it recognises it must give exactly what the schema gives, and it must leave
 * every other one (every refusal included) to the schema.
 */
import { describe, expect, it } from 'vitest'
import { commonListQuery, ListQuery } from '../src/routes/todos.js'

const QUERIES = [
  '',
  '?',
  '?limit=20',
  '?limit=1',
  '?limit=100',
  '?limit=020',
  '?limit=007',
  '?limit=0',
  '?limit=000',
  '?limit=101',
  '?limit=999',
  '?limit=1000',
  '?limit=-1',
  '?limit=1.5',
  '?limit=',
  '?limit=1e1',
  '?limit=%32%30',
  '?limit=20&',
  '?limit=20&limit=30',
  '?limit=20&done=true',
  '?done=false&limit=20',
  '?LIMIT=20',
  '?limit=20#x',
  '?limit= 20',
  '?access_token=abc&limit=20',
]

/** What the route's validator hands the schema: the decoded parameters, one value a string, several an array. */
const sent = (query: string) => {
  const params = new URLSearchParams(query.replace(/#.*$/, ''))
  return Object.fromEntries(
    [...new Set(params.keys())].map((k) => [k, params.getAll(k).length === 1 ? params.get(k) : params.getAll(k)]),
  )
}

describe('the list query without zod', () => {
  it.each(QUERIES)('agrees with the schema on %j', (query) => {
    const common = commonListQuery(`http://localhost/todos${query}`)
    const schema = ListQuery.safeParse(sent(query))
    if (common !== undefined) {
      expect(schema.success).toBe(true)
      expect(common).toEqual(schema.data)
    }
  })

  it('takes no query and ?limit=<1..100> alone, and nothing else', () => {
    const taken = QUERIES.filter((q) => commonListQuery(`http://localhost/todos${q}`) !== undefined)
    expect(taken).toEqual(['', '?limit=20', '?limit=1', '?limit=100', '?limit=020', '?limit=007'])
  })
})
