/**
 * A store whose users carry more than the library's fields (the type side is in
 * types.test-d.ts): the guard hands the store's record through as `raw`, untouched, and the API
 * shows only the library's fields.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import { expect, it } from 'vitest'
import { createAuth, type Store, type UserRecord } from './index.js'
import { migrateSqlite, openSqlite, sqliteStore } from './sqlite/index.js'
import { fastHasher } from './testing/index.js'

interface Member extends UserRecord {
  plan: 'free' | 'pro'
}

/** The SQLite store with a plan per user, kept beside it (an app would keep it in its own table). */
const memberStore = (plans: Map<string, Member['plan']>): Store<Member> => {
  const db = openSqlite(':memory:')
  migrateSqlite(db)
  const base = sqliteStore(db)
  const member = <R extends UserRecord>(user: R) => ({ ...user, plan: plans.get(user.email) ?? 'free' })
  const withMember = <T extends { user: UserRecord }>(found: T | null) => (found ? { ...found, user: member(found.user) } : null)
  return {
    ...base,
    createUser: async (input) => {
      const user = await base.createUser(input)
      return user ? member(user) : null
    },
    findUserByEmail: async (email) => withMember(await base.findUserByEmail(email)),
    findUserById: async (id) => withMember(await base.findUserById(id)),
    findSession: async (id) => withMember(await base.findSession(id)),
    findRefresh: async (ref) => withMember(await base.findRefresh(ref)),
    findApiKey: async (hash) => withMember(await base.findApiKey(hash)),
    searchUsers: async (search) => (await base.searchUsers(search)).map((found) => ({ ...found, user: member(found.user) })),
    findAdminUser: async (id, live) => withMember(await base.findAdminUser(id, live)),
  }
}

it('hands a richer user through to policies and guarded handlers as raw', async () => {
  const auth = createAuth({
    secret: 'rich-user-test-secret-0123456789abcdefgh',
    store: memberStore(new Map([['pro@example.com', 'pro']])),
    sendMail: () => {},
    hasher: fastHasher(),
    policies: { pro: (user) => user.raw.plan === 'pro' },
  })
  const app = new OpenAPIHono()
  app.route('/auth', auth.routes)
  app.get('/plan', auth.guard('pro'), (c) => c.json({ plan: c.get('user').raw.plan }))

  const signup = async (email: string) => {
    const res = await app.request('/auth/signup', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Ada', email, password: 'correct horse battery staple' }),
    })
    expect(res.status).toBe(201)
    const body = (await res.json()) as { accessToken: string; user: Record<string, unknown> }
    expect(Object.keys(body.user).sort()).toEqual(['createdAt', 'email', 'emailVerified', 'id', 'name'])
    return { Authorization: `Bearer ${body.accessToken}` }
  }
  const pro = await app.request('/plan', { headers: await signup('pro@example.com') })
  expect(pro.status).toBe(200)
  expect(await pro.json()).toEqual({ plan: 'pro' })
  expect((await app.request('/plan', { headers: await signup('free@example.com') })).status).toBe(403)
})
