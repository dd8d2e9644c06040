/** What the account screen's sections share: their context, and a titled region. */
import type { AuthClient, User } from '@latchkey/client'
import { h } from './dom.js'

export interface AccountContext {
  auth: AuthClient
  user: User
  show: (title: string, ...content: Node[]) => void
  /** What the next screen says (set before a step that signs out; the sign-in screen shows it). */
  noticeNext: (message: string) => void
}

/** A region named by its heading (`aria-labelledby`), so a screen reader can jump to it. */
export const section = (title: string, ...content: (Node | string)[]) => {
  const id = `section-${title.toLowerCase().replace(/\W+/g, '-')}`
  return h('section', { 'aria-labelledby': id, id: `${id}-region` }, h('h2', { id }, title), ...content)
}
