/**
 * The shapes the client shares with the server and between its own modules, taken from the /auth
 * routes' generated OpenAPI types (generated/openapi.ts) rather than copied by hand: what an
 * endpoint takes and answers, the user, a session, a sign-in's results. A leaf: it imports only
 * types, and no module of the client imports it back in a circle.
 */
import type { AuthClientError, ReauthenticationRequiredError } from './errors.js'
import type { components, paths } from './generated/openapi.js'

type Schemas = components['schemas']
/** A schema of the document, by name (an interface may extend it: the public types keep their names). */
type Schema<Name extends keyof Schemas> = Schemas[Name]

export interface User extends Schema<'User'> {}
export interface SessionView extends Schema<'Session'> {}
/** An API key as `GET /auth/api-keys` lists it: never the key itself. */
export interface ApiKey extends Schema<'ApiKey'> {}
/** What `POST /auth/api-keys` answers: the key (`key`), shown this once. */
export interface CreatedApiKey extends Schema<'CreatedApiKey'> {}

/** The 202 of a sign-in to an account with a second factor: answer it with {@link AuthClient.verifyTwoFactor}. */
export interface TwoFactorChallenge extends Schema<'TwoFactorChallenge'> {}

/** What a sign-in answered: signed in, or (an account with a second factor) a challenge to answer. */
export type SignInResult = { status: 'signed-in'; user: User } | { status: 'two-factor'; challenge: TwoFactorChallenge }

/**
 * The 202 of `POST /auth/email-sign-in`, the same for every address: keep `flow` in the page that
 * asked, and send it back with the code from the mail ({@link AuthClient.emailSignIn}).
 */
export interface EmailSignInStarted extends Schema<'EmailSignInStarted'> {}

/** What proves a sign-in mail: its link's token, or its code with the flow that asked for it. */
export type EmailSignInProof = Schemas['EmailSignInVerifyRequest']

/** `GET /auth/two-factor`. */
export interface TwoFactorStatus extends Schema<'TwoFactorStatus'> {}

/** What proves the user again (`reauth`): the password, and a code when two-factor sign-in is on. */
export interface ReauthProof extends Schema<'ReauthRequest'> {}

/** What {@link AuthClientOptions.onReauthenticationRequired} is asked with. */
export interface ReauthenticationPrompt {
  /** The refusal that asked for it: its `maxAge` is the operation's fresh age in seconds. */
  error: ReauthenticationRequiredError
  /** Why the last proof given was refused (a wrong password or code); `null` on the first ask. */
  failure: AuthClientError | null
}

/** What every sign-in route answers on success: the access token, its lifetime in seconds, the user. */
export type AuthResult = Schemas['AuthResult']

/** The state a UI renders: who is signed in, if anyone. */
export interface AuthState {
  user: User | null
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'

/** An /auth operation as `'<METHOD> <path under the mount point>'`, e.g. `'POST /login'`. */
export type Route = {
  [P in keyof paths]: {
    [M in Method]: paths[P][M] extends Record<string, unknown> ? `${Uppercase<M>} ${P & string}` : never
  }[Method]
}[keyof paths]

type Operation<R extends Route> = R extends `${infer M} ${infer P extends keyof paths}`
  ? NonNullable<paths[P][Lowercase<M> & Method]>
  : never

type JsonOf<T> = T extends { content: { 'application/json': infer J } } ? J : null

/** The JSON body an operation takes (`undefined` when it takes none). */
export type RequestOf<R extends Route> =
  Operation<R> extends { requestBody: { content: { 'application/json': infer B } } }
    ? B
    : Operation<R> extends { requestBody?: { content: { 'application/json': infer B } } }
      ? B | undefined
      : undefined

/** What a success (2xx) of an operation answers: its JSON, or `null` for a 204. */
export type AnswerOf<R extends Route> = {
  [S in keyof Operation<R>['responses']]: S extends 200 | 201 | 202 | 204 ? JsonOf<Operation<R>['responses'][S]> : never
}[keyof Operation<R>['responses']]
