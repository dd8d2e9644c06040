/**
 * What a client-side fragment on a page assumes: a client made by createAuthClient, and what the
 * page's UI asked the person for. A block's own imports and declarations take precedence.
 */
declare const createAuthClient: typeof import('@latchkey/client').createAuthClient
declare const auth: import('@latchkey/client').AuthClient
declare const baseUrl: string
declare const email: string
declare const password: string
declare const code: string
declare const emailCode: string
declare const currentPassword: string
declare const newEmail: string
declare const myLocks: import('@latchkey/client').LockManagerLike
declare const showWait: (seconds: number | null) => void
declare const render: (user: import('@latchkey/client').User | null) => void
declare const askForPassword: (prompt: { maxAge: number; wrong: string | undefined }) => Promise<string | null>
