import { z } from "zod";
import { MAX_EVENT_BYTES, MAX_REQUEST_BYTES } from "@warden/contracts/subjects";
import { type IdentitySpec } from "@warden/contracts/permissions";

/**
 * The resource limits the server enforces from the JWTs (docs/security.md, "Limits"). nats-server
 * applies an account's `subs` and `payload` to each connection (the lower of the user's and the
 * account's), `conn` to the account's connections together; it enforces no `data` limit, so none
 * is set. Every value is configurable per home (`env.json` `limits`, or `openWardenHome(dir, { limits })`);
 * -1 means unlimited.
 */
export const LimitsSchema = z.strictObject({
  /** Connections of the clients account at once: every agent and person together (NATS has no per-user connection limit). */
  clientConnections: z.int().min(-1).default(1_000),
  /** Subscriptions one agent's or person's connection may hold (an SDK connection holds 2). */
  clientSubscriptions: z.int().min(-1).default(1_000),
  /** The largest message a client may publish: twice the largest request (MAX_REQUEST_BYTES), room for a decision that edits one. The server closes a connection that sends more. */
  clientPayloadBytes: z.int().min(-1).default(2 * MAX_REQUEST_BYTES),
  /** Connections of the Warden account at once: services, executors, the admin's commands. */
  wardenConnections: z.int().min(-1).default(1_000),
  /**
   * Subscriptions one Warden-account connection may hold, but the registry's and the admin's.
   * Measured: 11 (notary) to 20 (approver), an executor about 10 per domain (the support desk's 5: 58).
   */
  serviceSubscriptions: z.int().min(-1).default(10_000),
  /**
   * The registry's: it holds one subscription per call read that waits for an outcome (measured:
   * 20, and 320 with 300 reads waiting), which callers drive; a cap would make one caller's flood
   * everyone's timeouts, so by default there is none.
   */
  registrySubscriptions: z.int().min(-1).default(-1),
  /** The largest message a Warden-account identity may publish: an event (MAX_EVENT_BYTES). */
  wardenPayloadBytes: z.int().min(-1).default(MAX_EVENT_BYTES),
});
export type Limits = z.infer<typeof LimitsSchema>;
export type LimitsInput = z.input<typeof LimitsSchema>;

export const DEFAULT_LIMITS: Limits = LimitsSchema.parse({});

/** Connection limits of one user JWT (`data` is not enforced by nats-server, so it stays open). */
export interface UserLimits {
  readonly subs: number;
  readonly payload: number;
  readonly data: number;
}

/** The per-connection limits a user JWT carries for the identity: by its account, and the registry and admin apart. */
export function userLimitsOf(spec: IdentitySpec, limits: Limits): UserLimits {
  const open = { subs: -1, payload: -1, data: -1 };
  switch (spec.kind) {
    case "agent":
    case "human":
      return { ...open, subs: limits.clientSubscriptions, payload: limits.clientPayloadBytes };
    case "admin":
      // the operator: bounded only by the Warden account's payload
      return { ...open, payload: limits.wardenPayloadBytes };
    case "service":
      if (spec.role === "registry") return { ...open, subs: limits.registrySubscriptions, payload: limits.wardenPayloadBytes };
      return { ...open, subs: limits.serviceSubscriptions, payload: limits.wardenPayloadBytes };
    default:
      return { ...open, subs: limits.serviceSubscriptions, payload: limits.wardenPayloadBytes };
  }
}

/** An account's limits: its connections together, and the cap every connection of it gets; no leaf nodes. */
export function accountLimitsOf(account: "clients" | "warden", limits: Limits) {
  const shared = { data: -1, imports: -1, exports: -1, wildcards: true, leaf: 0 };
  if (account === "clients") return { ...shared, conn: limits.clientConnections, subs: limits.clientSubscriptions, payload: limits.clientPayloadBytes };
  // every connection gets the lower of its user's cap and the account's: the account's must let the highest through
  const caps = [limits.serviceSubscriptions, limits.registrySubscriptions];
  const subs = caps.includes(-1) ? -1 : Math.max(...caps);
  return { ...shared, conn: limits.wardenConnections, subs, payload: limits.wardenPayloadBytes };
}
