export { DEMO_AGENTS, DEMO_PEOPLE, pushAccountJwts, standardIdentities, type StandardIdentitiesOptions } from "./provision.js";
export { DEFAULT_LIMITS, LimitsSchema, type Limits, type LimitsInput } from "./limits.js";
export {
  knowsSyncInterval,
  parseNatsServerVersion,
  renderAuthConfig,
  renderJetStreamDurability,
  renderServerConfig,
  type NatsServerVersion,
  type ServerConfigOptions,
} from "./server-config.js";
export { accountJwts, createTrustRoot, mintSystemUser, mintUser, type AccountJwts, type MintedUser, type TrustRoot } from "./trust-root.js";
export {
  DEFAULT_WARDEN_HOME,
  EnvFileSchema,
  IDENTITY_CREDS_FILE,
  IdentityError,
  openWardenHome,
  type EnvFile,
  type IdentityEntry,
  type WardenHome,
  type WardenHomeOptions,
} from "./warden-home.js";
