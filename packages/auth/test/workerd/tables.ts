/** The library's tables, children before parents: emptying them in this order needs no cascade. */
export const AUTH_TABLES = [
  'auth_api_keys',
  'auth_identities',
  'auth_oauth_flows',
  'auth_email_sign_ins',
  'auth_add_credential_codes',
  'auth_devices',
  'auth_passkey_challenges',
  'auth_passkeys',
  'auth_challenges',
  'auth_recovery_codes',
  'auth_two_factors',
  'auth_email_tokens',
  'auth_reset_tokens',
  'auth_sessions',
  'auth_users',
]
