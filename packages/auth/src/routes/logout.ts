/** POST /logout: deletes the caller's session, so its refresh cookie and access tokens stop working at once. */
import type { AuthApp, Kit } from '../kit.js'
import { guardedRoute } from '../route.js'

export const logout = (app: AuthApp, kit: Kit) =>
  app.openapi(
    guardedRoute(kit.guard(true), {
      auth: true,
      method: 'post',
      path: '/logout',
      tags: ['auth'],
      summary: 'Sign out of this session',
      responses: { 204: { description: 'Session revoked; the refresh cookie is cleared' } },
    }),
    async (c) => {
      await kit.store.deleteSession(c.var.sessionId)
      kit.cookie.clear(c)
      return c.body(null, 204)
    },
  )
