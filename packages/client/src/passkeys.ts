/**
 * Passkeys in the browser (docs/reference/passkeys.md): each ceremony asks the server for options,
 * runs `navigator.credentials` through `@simplewebauthn/browser` (the JSON ↔ ArrayBuffer forms,
 * conditional mediation when the browser has it, and one ceremony at a time: a new one aborts a
 * pending one, so a modal sign-in ends the autofill request that was waiting), and posts the
 * answer back. What a sign-in answers is adopted by the client as a password sign-in's is. The
 * library is imported on first use (a separate chunk for bundlers).
 */
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser'
import type { AuthCore } from './core.js'
import type { components } from './generated/openapi.js'
import type { SignInResult, TwoFactorChallenge, User } from './types.js'

/** Loaded on first use: an app that never touches passkeys neither loads nor bundles it eagerly. */
const webauthn = () => import('@simplewebauthn/browser')

type Schemas = components['schemas']

/** Request options in their JSON form (WebAuthn Level 3), as the server sends them. */
export type PasskeyRequestOptions = Schemas['PasskeyRequestOptions']

/** A passkey as `GET /auth/passkeys` lists it: `{ id, name, createdAt, lastUsedAt, backedUp, transports }`. */
export type Passkey = Schemas['Passkey']

/** An assertion answering login options, as `POST /auth/reauth` takes it. */
export type PasskeyProof = Schemas['PasskeyProof']

// The server's option schemas and @simplewebauthn's types describe the same JSON (WebAuthn Level 3);
// the schemas are looser (plain strings for enums), so each crossing is one cast here.
const requestOptions = (options: PasskeyRequestOptions) => options as unknown as PublicKeyCredentialRequestOptionsJSON
const creationOptions = (options: Schemas['PasskeyCreationOptions']) =>
  options as unknown as PublicKeyCredentialCreationOptionsJSON
const registration = (response: RegistrationResponseJSON) => response as unknown as Schemas['PasskeyRegistrationResponse']

/** The passkey calls of an auth client, over its core (the same token, cookie, step-up and errors). */
export const passkeysOf = (core: Pick<AuthCore, 'call' | 'signIn' | 'reauth'>) => {
  /** The creation options of the registration under way (their challenge goes with the mailed code). */
  let pending: Schemas['PasskeyCreationOptions'] | null = null

  const assertion = async (autofill = false): Promise<PasskeyProof> => {
    const { challengeId, options } = await core.call('POST /passkeys/login/options', undefined)
    const { startAuthentication } = await webauthn()
    const response = await startAuthentication({ optionsJSON: requestOptions(options), useBrowserAutofill: autofill })
    return { challengeId, response: response as PasskeyProof['response'] }
  }

  return {
    /** Whether this browser can use passkeys at all. */
    supported: (): boolean => typeof (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential === 'function',
    /** Whether it offers passkeys in a field's autofill (conditional mediation). */
    autofillSupported: async (): Promise<boolean> => (await webauthn()).browserSupportsWebAuthnAutofill(),

    /**
     * Adding a passkey, step 1: the server makes creation options and mails a 6-digit code to the
     * account's verified address (403 `email-unverified` otherwise). Ask the user for the code,
     * then call {@link register}. A new call replaces the options and the code.
     */
    async start(): Promise<void> {
      pending = await core.call('POST /passkeys/register/options', undefined, 'session')
    },
    /**
     * Adding a passkey, step 2: the browser's passkey dialog, then the new credential is sent with
     * the mailed `emailCode` (and a `name`, default `Passkey`). Needs {@link start} first; a refusal
     * (a wrong code too) needs `start()` again, which mails a new code.
     */
    async register(input: { emailCode: string; name?: string }): Promise<Passkey> {
      if (!pending) throw new TypeError('Call passkeys.start() first: it mails the code that register() sends')
      const { startRegistration } = await webauthn()
      const response = await startRegistration({ optionsJSON: creationOptions(pending) })
      // Sent, its challenge is spent whatever the answer: another try needs start() again (a new code).
      pending = null
      return core.call('POST /passkeys/register', { response: registration(response), ...input }, 'session')
    },

    /**
     * Signs in with a passkey: signed in, or (a passkey that did not verify the user, on an account
     * with a second factor) the two-factor challenge. With `autofill: true` the request waits in
     * the background for the user to pick a passkey from an input's autofill (the input needs
     * `autocomplete="username webauthn"`); a later ceremony aborts that wait first.
     * `autofill` on a browser without conditional mediation rejects at once (check
     * `autofillSupported()`).
     */
    async signIn({ autofill = false }: { autofill?: boolean } = {}): Promise<SignInResult> {
      return core.signIn('POST /passkeys/login', await assertion(autofill))
    },

    /** Answers a two-factor challenge (`methods` lists `passkey`) with one of the account's passkeys. */
    async verifyTwoFactor(challenge: TwoFactorChallenge): Promise<SignInResult> {
      if (!challenge.passkeyOptions) throw new TypeError('This challenge offers no passkey (see its methods)')
      const { startAuthentication } = await webauthn()
      const passkey = await startAuthentication({ optionsJSON: requestOptions(challenge.passkeyOptions) })
      return core.signIn('POST /two-factor/verify', {
        challenge: challenge.challenge,
        passkey: passkey as PasskeyProof['response'],
      })
    },

    /**
     * An assertion by one of the user's passkeys, as `reauth` takes it: for an
     * `onReauthenticationRequired` that offers a passkey (answer `{ passkey: await proof() }`).
     */
    proof: () => assertion(),
    /**
     * Proves the user again with one of their passkeys (`POST /auth/reauth`); `code` when the
     * account has a second factor and the passkey may not verify the user.
     */
    async reauth({ code }: { code?: string } = {}): Promise<User> {
      return core.reauth({ passkey: await assertion(), ...(code === undefined ? {} : { code }) })
    },

    list: () => core.call('GET /passkeys', undefined, 'session'),
    rename: (id: string, name: string) => core.call('PATCH /passkeys/{id}', { name }, 'session', { id }),
    remove: (id: string) => core.call('DELETE /passkeys/{id}', undefined, 'session', { id }),
  }
}
