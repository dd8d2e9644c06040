/**
 * Passkeys in the browser (docs/reference/passkeys.md): each ceremony asks the server for options,
 * runs `navigator.credentials` through `@simplewebauthn/browser` (the JSON ↔ ArrayBuffer forms,
 * conditional mediation when the browser has it, and one ceremony at a time: a new one aborts a
 * pending one, so a modal sign-in ends the autofill request that was waiting), and posts the
 * answer back. What a sign-in answers is adopted by the client as a password sign-in's is. The
 * library is imported on first use (a separate chunk for bundlers).
 */
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser'

/** Loaded on first use: an app that never touches passkeys neither loads nor bundles it eagerly. */
const webauthn = () => import('@simplewebauthn/browser')

/** Request options in their JSON form (WebAuthn Level 3), as the server sends them. */
export type PasskeyRequestOptions = PublicKeyCredentialRequestOptionsJSON

/** A passkey as `GET /auth/passkeys` lists it. */
export interface Passkey {
  /** The credential id, base64url. */
  id: string
  name: string
  createdAt: string
  /** `null` until its first sign-in. */
  lastUsedAt: string | null
  /** Synced by a provider (iCloud Keychain, Google Password Manager, …). */
  backedUp: boolean
  transports: string[]
}

/** An assertion answering login options, as `POST /auth/reauth` takes it. */
export interface PasskeyProof {
  challengeId: string
  response: AuthenticationResponseJSON
}

/** What the client gives this module: its own calls, so passkeys share its token, cookie and errors. */
export interface PasskeyHost<SignIn, User> {
  /** Calls an auth route (under `authPath`) and answers its JSON; `bearer`: with the access token. */
  call<T>(method: string, path: string, body?: unknown, bearer?: boolean): Promise<T>
  /** A sign-in step whose 200 is adopted (signed in) or whose 202 is the two-factor challenge. */
  firstFactor(path: string, input: unknown): Promise<SignIn>
  /** `POST /auth/reauth` with `proof`; the new token is adopted. */
  reauth(proof: { passkey: PasskeyProof; code?: string }): Promise<User>
}

interface LoginOptions {
  challengeId: string
  options: PublicKeyCredentialRequestOptionsJSON
}

/** The passkey calls of an auth client; `host` is the client's own machinery. */
export const passkeysOf = <SignIn, User>(host: PasskeyHost<SignIn, User>) => {
  /** The creation options of the registration under way (their challenge goes with the mailed code). */
  let pending: PublicKeyCredentialCreationOptionsJSON | null = null
  const assertion = async (autofill = false): Promise<PasskeyProof> => {
    const { challengeId, options } = await host.call<LoginOptions>('POST', '/passkeys/login/options')
    const { startAuthentication } = await webauthn()
    const response = await startAuthentication({ optionsJSON: options, useBrowserAutofill: autofill })
    return { challengeId, response }
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
      pending = await host.call<PublicKeyCredentialCreationOptionsJSON>('POST', '/passkeys/register/options', undefined, true)
    },
    /**
     * Adding a passkey, step 2: the browser's passkey dialog, then the new credential is sent with
     * the mailed `emailCode` (and a `name`, default `Passkey`). Needs {@link start} first; a refusal
     * (a wrong code too) needs `start()` again, which mails a new code.
     */
    async register(input: { emailCode: string; name?: string }): Promise<Passkey> {
      if (!pending) throw new TypeError('Call passkeys.start() first: it mails the code that register() sends')
      const { startRegistration } = await webauthn()
      const response = await startRegistration({ optionsJSON: pending })
      // Sent, its challenge is spent whatever the answer: another try needs start() again (a new code).
      pending = null
      return host.call<Passkey>('POST', '/passkeys/register', { response, ...input }, true)
    },

    /**
     * Signs in with a passkey: signed in, or (a passkey that did not verify the user, on an account
     * with a second factor) the two-factor challenge. With `autofill: true` the request waits in
     * the background for the user to pick a passkey from an input's autofill (the input needs
     * `autocomplete="username webauthn"`); a later call without it aborts that wait first.
     * `autofill` on a browser without conditional mediation rejects at once (check
     * `autofillSupported()`).
     */
    async signIn({ autofill = false }: { autofill?: boolean } = {}): Promise<SignIn> {
      const proof = await assertion(autofill)
      return host.firstFactor('/passkeys/login', proof)
    },

    /** Answers a two-factor challenge (`methods` lists `passkey`) with one of the account's passkeys. */
    async verifyTwoFactor(challenge: { challenge: string; passkeyOptions?: PublicKeyCredentialRequestOptionsJSON }) {
      if (!challenge.passkeyOptions) throw new TypeError('This challenge offers no passkey (see its methods)')
      const { startAuthentication } = await webauthn()
      const passkey = await startAuthentication({ optionsJSON: challenge.passkeyOptions })
      return host.firstFactor('/two-factor/verify', { challenge: challenge.challenge, passkey })
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
      return host.reauth({ passkey: await assertion(), ...(code === undefined ? {} : { code }) })
    },

    list: () => host.call<Passkey[]>('GET', '/passkeys', undefined, true),
    rename: (id: string, name: string) => host.call<Passkey>('PATCH', `/passkeys/${encodeURIComponent(id)}`, { name }, true),
    remove: (id: string) => host.call<null>('DELETE', `/passkeys/${encodeURIComponent(id)}`, undefined, true),
  }
}
