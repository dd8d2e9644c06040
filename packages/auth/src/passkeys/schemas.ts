/** The wire shapes of the passkey routes (docs/reference/passkeys.md), in the JSON forms of WebAuthn Level 3. */
import { z } from '@hono/zod-openapi'
import { storableString } from '../fields.js'
import type { PasskeyRecord } from './store.js'

const b64url = (max: number, description: string) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_-]*$/, 'must be base64url without padding')
    .openapi({ description })

const CredentialId = b64url(1366, 'The credential id, base64url (at most 1023 bytes)').min(1)
const Transports = z.array(z.string().max(32)).max(16)

/** What `navigator.credentials.create()` answered, as `PublicKeyCredential.toJSON()` gives it. */
export const RegistrationResponseSchema = z
  .object({
    id: CredentialId,
    rawId: CredentialId,
    type: z.literal('public-key'),
    response: z.object({
      clientDataJSON: b64url(4096, 'The client data, base64url').min(1),
      attestationObject: b64url(16_384, 'The attestation object (CBOR), base64url').min(1),
      transports: Transports.optional(),
    }),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
    authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  })
  .openapi('PasskeyRegistrationResponse', {
    description: 'The RegistrationResponseJSON of the new credential (`PublicKeyCredential.toJSON()`)',
  })

/** What `navigator.credentials.get()` answered, as `PublicKeyCredential.toJSON()` gives it. */
export const AuthenticationResponseSchema = z
  .object({
    id: CredentialId,
    rawId: CredentialId,
    type: z.literal('public-key'),
    response: z.object({
      clientDataJSON: b64url(4096, 'The client data, base64url').min(1),
      authenticatorData: b64url(4096, 'The authenticator data, base64url').min(1),
      signature: b64url(1024, 'The signature, base64url').min(1),
      userHandle: b64url(128, 'The user handle of a discoverable credential, base64url').optional(),
    }),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
    authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  })
  .openapi('PasskeyAuthenticationResponse', {
    description: 'The AuthenticationResponseJSON of the assertion (`PublicKeyCredential.toJSON()`)',
  })

const Timeout = z.int().min(0).max(600_000).optional().openapi({ format: 'int32', description: 'Milliseconds' })

const Descriptor = z.object({
  id: z.string().max(1366),
  type: z.string().max(16).openapi({ example: 'public-key' }),
  transports: Transports.optional(),
})

/** `PublicKeyCredentialCreationOptionsJSON`: for `PublicKeyCredential.parseCreationOptionsFromJSON()`. */
export const CreationOptionsSchema = z
  .object({
    challenge: z.string().max(64),
    rp: z.object({ id: z.string().max(253).optional(), name: z.string().max(64) }),
    user: z.object({ id: z.string().max(128), name: z.string().max(254), displayName: z.string().max(100) }),
    pubKeyCredParams: z
      .array(z.object({ alg: z.int().min(-65536).max(65535).openapi({ format: 'int32' }), type: z.string().max(16) }))
      .max(8),
    timeout: Timeout,
    excludeCredentials: z.array(Descriptor).max(1000).optional(),
    authenticatorSelection: z
      .object({
        residentKey: z.string().max(16).optional(),
        requireResidentKey: z.boolean().optional(),
        userVerification: z.string().max(16).optional(),
      })
      .optional(),
    attestation: z.string().max(16).optional(),
    extensions: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('PasskeyCreationOptions', { description: 'WebAuthn creation options (JSON form, WebAuthn Level 3)' })

/** `PublicKeyCredentialRequestOptionsJSON`: for `PublicKeyCredential.parseRequestOptionsFromJSON()`. */
export const RequestOptionsSchema = z
  .object({
    challenge: z.string().max(64),
    rpId: z.string().max(253).optional(),
    timeout: Timeout,
    allowCredentials: z.array(Descriptor).max(1000).optional(),
    userVerification: z.string().max(16).optional(),
    extensions: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('PasskeyRequestOptions', { description: 'WebAuthn request options (JSON form, WebAuthn Level 3)' })

export const PasskeyName = storableString()
  .trim()
  .min(1, 'Name must not be empty')
  .max(64, 'Name must be at most 64 characters')
  .openapi({ description: 'A name to tell the passkeys apart', example: 'Laptop' })

export const PasskeySchema = z
  .object({
    id: z.string().max(1366).openapi({ description: 'The credential id, base64url' }),
    name: z.string().max(64),
    createdAt: z.string().max(30).openapi({ format: 'date-time' }),
    lastUsedAt: z.string().max(30).nullable().openapi({ format: 'date-time', description: '`null` until its first sign-in' }),
    backedUp: z.boolean().openapi({ description: 'Synced by a passkey provider (so it survives the loss of a device)' }),
    transports: Transports.openapi({
      description: 'How the browser may reach the authenticator (`internal`, `hybrid`, `usb`, …)',
    }),
  })
  .openapi('Passkey')

export const passkeyJson = (p: PasskeyRecord): z.infer<typeof PasskeySchema> => ({
  id: p.id,
  name: p.name,
  createdAt: p.createdAt.toISOString(),
  lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
  backedUp: p.backedUp,
  transports: p.transports,
})

export const PasskeyIdParam = z.object({
  id: CredentialId.openapi({ param: { name: 'id', in: 'path' } }),
})

export const PasskeyEmailCode = z
  .string()
  .regex(/^[0-9]{6}$/, 'Email code must be the 6 digits of the mail that the registration options sent')
  .openapi({
    minLength: 6,
    maxLength: 6,
    description: 'The 6-digit code mailed by POST /auth/passkeys/register/options (10 minutes; the fifth wrong one kills it)',
    example: '123456',
  })
