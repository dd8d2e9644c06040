/**
 * What a server-side fragment on a page assumes is already there: the app, the component made by
 * createAuth (with an `admin` policy), its options, and the app's own helpers. A block's own
 * imports and declarations take precedence (each block is its own module).
 */
declare const createAuth: typeof import('@latchkey/auth').createAuth
declare const z: typeof import('@hono/zod-openapi').z
declare const app: import('@hono/zod-openapi').OpenAPIHono
declare const auth: import('@latchkey/auth').Auth<
  import('@latchkey/auth').UserRecord & { role: string | null },
  'admin',
  'todos:read' | 'todos:write'
>
declare const secret: string
declare const store: import('@latchkey/auth').Store<import('@latchkey/auth').UserRecord & { role: string | null }>
declare const sendMail: (mail: import('@latchkey/auth').AuthMail) => Promise<void>
declare const env: { DB: import('@latchkey/auth/d1').D1DatabaseLike; AUTH_SECRET: string }
/** An operation's documented answers, as a route of yours has them. */
declare const responses: { 200: { description: string }; 204: { description: string } }
declare const statsResponse: {
  description: string
  content: { 'application/json': { schema: import('@hono/zod-openapi').z.ZodType<{ users: number; by: string }> } }
}
declare const list: (userId: string) => never
declare const stats: () => { users: number }
declare const countUsers: () => number
declare const teams: { hasMember(teamId: string | undefined, userId: string): Promise<boolean> }
declare const updateUser: import('hono').Handler
declare const showBoard: import('hono').Handler
declare const createEmptyTestDatabase: () => Promise<{ close(): void }>
declare const myStore: (db: { close(): void }) => import('@latchkey/auth').Store
