/** GET /me: the signed-in user as stored now. */
import { type AuthApp, type Kit, userJson } from '../kit.js'
import { guardedRoute } from '../route.js'
import { jsonContent, UserSchema } from '../schemas.js'

export const me = (app: AuthApp, kit: Kit) =>
  app.openapi(
    guardedRoute(kit.guard(true), {
      auth: true,
      method: 'get',
      path: '/me',
      tags: ['auth'],
      summary: 'The signed-in user',
      responses: { 200: jsonContent(UserSchema, 'The signed-in user') },
    }),
    (c) => c.json(userJson(c.var.user.raw), 200),
  )
