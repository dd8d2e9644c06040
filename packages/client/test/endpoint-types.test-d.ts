/**
 * The endpoint calls are typed from the /auth routes' generated OpenAPI types (`pnpm typecheck`
 * checks this file): a route that does not exist, a body the operation does not take, or a wrong
 * reading of an answer fails to compile.
 */
import { expectTypeOf } from 'vitest'
import type { AuthCore } from '../src/core.js'
import type { AnswerOf, RequestOf, Route, SessionView, TwoFactorChallenge, User } from '../src/types.js'

declare const core: AuthCore

expectTypeOf<'POST /login'>().toExtend<Route>()
expectTypeOf<'DELETE /sessions/{id}'>().toExtend<Route>()
// @ts-expect-error: the routes are under the mount point, without it
expectTypeOf<'POST /auth/login'>().toExtend<Route>()
// @ts-expect-error: no such operation
expectTypeOf<'GET /login'>().toExtend<Route>()

expectTypeOf<RequestOf<'POST /login'>>().toEqualTypeOf<{ email: string; password: string }>()
expectTypeOf<AnswerOf<'GET /sessions'>>().toEqualTypeOf<SessionView[]>()
expectTypeOf<AnswerOf<'POST /change-password'>>().toEqualTypeOf<null>()
expectTypeOf<AnswerOf<'POST /login'>>().toExtend<{ user: User } | TwoFactorChallenge>()
expectTypeOf(core.call('GET /me', undefined, 'session')).resolves.toEqualTypeOf<User>()
expectTypeOf(core.adopt).parameter(0).toExtend<{ accessToken: string; expiresIn: number }>()

export const mistakes = () => [
  // @ts-expect-error: a body the operation does not take
  core.call('POST /login', { email: 'ada@example.com' }),
  // @ts-expect-error: a number where the document says string
  core.call('POST /two-factor/enable', { code: 123456, emailCode: '654321' }, 'session'),
  // @ts-expect-error: not a route of the document
  core.call('POST /signin', { email: 'ada@example.com', password: 'x' }),
]
