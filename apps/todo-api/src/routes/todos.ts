/**
 * The todo routes (docs/reference/endpoints.md#todos), all `auth: true`, and open to API keys with
 * `todos:read` (the list) or `todos:write` (the rest). The owner is always the signed-in user (or the key's owner),
 * never anything the client sends; PATCH and DELETE match id AND owner in one statement and
 * answer 404 naming the id (never 403) when nothing matches. Storage is the TodoStore's job.
 */
import { type OpenAPIHono, z } from '@hono/zod-openapi'
import { AuthError } from '@latchkey/auth'
import { fieldCode, problemResponse } from '@latchkey/auth/http'
import type { AppAuth } from '../auth.js'
import type { Todo, TodoChanges, TodoStore } from '../db/index.js'
import { codePointString } from '../fields.js'

// Length is counted in code points, as JSON Schema's maxLength counts it (the auth routes' rule too).
const Title = codePointString(1, 500, 'Title')
  .refine((s) => s.trim() !== '', {
    message: 'Title must not be blank',
    params: fieldCode('too_short'),
    when: (payload) => payload.issues.length === 0,
  })
  .openapi({ example: 'Buy milk' })

export const TodoSchema = z
  .object({
    id: z.uuid().max(36),
    userId: z.string().max(255),
    title: z.string().max(500),
    done: z.boolean(),
    createdAt: z.string().max(30).openapi({ format: 'date-time', example: '2026-11-21T10:00:00.000Z' }),
  })
  .openapi('Todo')

const CreateTodo = z
  .object({ title: Title, done: z.boolean().optional().openapi({ default: false }) })
  .openapi('CreateTodoRequest', { description: 'Other fields (id, userId, createdAt, …) are ignored.' })

const UpdateTodo = z
  .object({ title: Title.optional(), done: z.boolean().optional() })
  .refine((b) => b.title !== undefined || b.done !== undefined, {
    message: 'Send at least one of title and done',
    params: fieldCode('required'),
  })
  .openapi('UpdateTodoRequest', { description: 'At least one of title and done; other fields are ignored.' })

// A Map, not an object literal: `done=constructor` must not find Object.prototype's (the fuzzer
// found that on PostgreSQL, where the function then reached the query as a parameter: a 500).
const BOOLEANS = new Map<string, boolean>([
  ['true', true],
  ['1', true],
  ['yes', true],
  ['on', true],
  ['false', false],
  ['0', false],
  ['no', false],
  ['off', false],
])

/** `on` → `[Oo][Nn]`: a pattern that matches the word in any case. */
const anyCase = (word: string) =>
  [...word].map((ch) => (ch.toLowerCase() === ch.toUpperCase() ? ch : `[${ch.toUpperCase()}${ch}]`)).join('')

const DoneQuery = z
  .string()
  .transform((s, ctx) => {
    const value = BOOLEANS.get(s.toLowerCase())
    if (value === undefined) {
      ctx.issues.push({
        code: 'custom',
        input: s,
        message: 'Done must be one of true, false, 1, 0, yes, no, on, off (any case)',
        params: fieldCode('invalid_value'),
      })
      return z.NEVER
    }
    return value
  })
  .optional()
  .openapi({
    type: 'string',
    // JSON Schema patterns have no case-insensitive flag: each letter is a class.
    pattern: `^(${[...BOOLEANS.keys()].map(anyCase).join('|')})$`,
    maxLength: 5,
    description: 'Only done (true, 1, yes, on) or open (false, 0, no, off) todos, in any case.',
    example: 'true',
  })

const LimitQuery = z
  .string()
  .refine((s) => /^\d+$/.test(s), { message: 'Limit must be a whole number from 1 to 100', params: fieldCode('invalid_type') })
  .transform(Number)
  .pipe(z.number().int().min(1).max(100))
  .optional()
  .default(20)
  .openapi({ type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 20, description: 'Most todos to return' })

export const ListQuery = z.object({ done: DoneQuery, limit: LimitQuery })

/**
 * What {@link ListQuery} makes of no query and of `?limit=<n>` alone, the front end's every
 * read, without running it (the route's `fastQuery`); `undefined` sends anything else to the schema.
 */
export const commonListQuery = (url: string): { limit: number } | undefined => {
  const start = url.indexOf('?')
  if (start === -1) return { limit: 20 }
  if (!url.startsWith('limit=', start + 1)) return undefined
  const digits = url.slice(start + 7)
  if (!/^\d{1,3}$/.test(digits)) return undefined
  const limit = Number(digits)
  return limit >= 1 && limit <= 100 ? { limit } : undefined
}

const IdParam = z.object({
  id: z.string().openapi({
    param: { name: 'id', in: 'path' },
    // Any segment is accepted and answered (404 when it is not one of the caller's todo ids,
    // docs/reference/endpoints.md#todos), so the schema may not refuse what the server answers: no uuid format, and
    // the longest path segment Node's 16 KiB header limit lets through.
    pattern: '^[^/]+$',
    maxLength: 16384,
    description: 'The todo id (a UUID). Any other value simply matches nothing: 404.',
    example: '019a8f3c-5b2e-7c1d-9e4f-0a1b2c3d4e5f',
  }),
})

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
})
const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, content: { 'application/json': { schema } } })

/** The wire form of a todo: timestamps as ISO 8601 UTC with milliseconds. */
export const todoJson = (todo: Todo) => ({
  id: todo.id,
  userId: todo.userId,
  title: todo.title,
  done: todo.done,
  createdAt: todo.createdAt.toISOString(),
})

const notFound = (id: string) => new AuthError('not_found', { detail: `No todo with id ${id}` })

// Ids are UUIDs the server made. Anything else matches no todo (docs/reference/endpoints.md#todos: 404 naming it) and
// never reaches the store, so text it cannot hold (%00) is not a database error either.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export interface TodoRouteDeps {
  auth: AppAuth
  todos: TodoStore
  /** UUIDv7, monotonic within the process. */
  newId: () => string
  now: () => Date
}

export const todoRoutes = (app: OpenAPIHono, { auth, todos, newId, now }: TodoRouteDeps) => {
  const tags = ['todos']

  auth.openapi(
    app,
    {
      method: 'post',
      path: '/todos',
      operationId: 'createTodo',
      auth: true,
      scope: 'todos:write',
      tags,
      summary: 'Create a todo owned by the caller',
      request: { body: jsonBody(CreateTodo) },
      responses: {
        201: json(TodoSchema, 'The created todo'),
        400: problemResponse('Invalid body'),
      },
    },
    async (c) => {
      const { title, done } = c.req.valid('json')
      const todo = await todos.create({ id: newId(), userId: c.get('user').id, title, done: done ?? false, createdAt: now() })
      return c.json(todoJson(todo), 201)
    },
  )

  auth.openapi(
    app,
    {
      method: 'get',
      path: '/todos',
      operationId: 'listTodos',
      auth: true,
      scope: 'todos:read',
      tags,
      summary: "The caller's todos, newest first",
      request: { query: ListQuery },
      fastQuery: commonListQuery,
      responses: {
        200: json(z.array(TodoSchema).max(100), 'At most `limit` todos, newest `createdAt` first (ties: newest id first)'),
        400: problemResponse('Invalid `done` or `limit`'),
      },
    },
    async (c) => {
      const { done, limit } = c.req.valid('query')
      const list = await todos.list(c.get('user').id, { done, limit })
      return c.json(list.map(todoJson), 200)
    },
  )

  auth.openapi(
    app,
    {
      method: 'patch',
      path: '/todos/{id}',
      operationId: 'updateTodo',
      auth: true,
      scope: 'todos:write',
      tags,
      summary: 'Change the title or done flag of one of the caller’s todos',
      request: { params: IdParam, body: jsonBody(UpdateTodo) },
      responses: {
        200: json(TodoSchema, 'The updated todo'),
        400: problemResponse('Invalid body'),
        404: problemResponse('The caller has no todo with this id'),
      },
    },
    async (c) => {
      const { id } = c.req.valid('param')
      const { title, done } = c.req.valid('json')
      const changes: TodoChanges = {}
      if (title !== undefined) changes.title = title
      if (done !== undefined) changes.done = done
      const todo = UUID.test(id) ? await todos.update(c.get('user').id, id, changes) : null
      if (!todo) throw notFound(id)
      return c.json(todoJson(todo), 200)
    },
  )

  auth.openapi(
    app,
    {
      method: 'delete',
      path: '/todos/{id}',
      operationId: 'deleteTodo',
      auth: true,
      scope: 'todos:write',
      tags,
      summary: 'Delete one of the caller’s todos',
      request: { params: IdParam },
      responses: {
        204: { description: 'Deleted' },
        404: problemResponse('The caller has no todo with this id'),
      },
    },
    async (c) => {
      const { id } = c.req.valid('param')
      if (!UUID.test(id) || !(await todos.remove(c.get('user').id, id))) throw notFound(id)
      return c.body(null, 204)
    },
  )
}
