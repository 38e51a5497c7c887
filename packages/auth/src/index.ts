export {
  ADMISSION_KEY_PUBLISHED_SECONDS,
  type AdmissionKeyRow,
  ensureAdmissionSigningKey,
  generateAdmissionSigningKey,
  readAdmissionSigningKeys,
  rotateAdmissionSigningKey,
} from "./admission-key-store.ts";
export {
  API_KEY_PREFIX,
  apiKeyId,
  apiKeyMatches,
  generateApiKey,
  hashApiKey,
  type NewApiKey,
} from "./api-key.ts";
export {
  type ActiveApiKey,
  type ApiKeyRecord,
  activeApiKeys,
  createApiKey,
  listApiKeys,
  revokeApiKey,
} from "./api-key-records.ts";
export {
  CUSTOMER_TOKEN_ALGORITHM,
  CUSTOMER_TOKEN_AUDIENCE,
  CUSTOMER_TOKEN_ISSUER,
  CustomerTokenSigner,
  type MintedCustomerToken,
} from "./customer-token-signer.ts";
export {
  CustomerTokenError,
  CustomerTokenVerifier,
  type CustomerTokenVerifierOptions,
  type TokenRefusalReason,
  type VerifiedCustomer,
} from "./customer-token-verifier.ts";
export { type CachedVerification, VerifiedTokenCache } from "./verified-token-cache.ts";
