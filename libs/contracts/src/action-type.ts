import { z } from "zod";

/** What a tool does, in the Tool Manager's words (finer than its grade, which says what can be undone). */
export const ACTION_TYPES = [
  "read",
  "search",
  "inspect",
  "compute",
  "transform",
  "generate",
  "write",
  "patch",
  "execute",
  "deploy",
  "external_send",
  "purchase",
  "delete",
  "admin",
  "auth",
  "memory_read",
  "memory_write",
  "subagent_delegate",
] as const;
export const ActionTypeSchema = z.enum(ACTION_TYPES);
export type ActionType = z.infer<typeof ActionTypeSchema>;

/**
 * The six permission levels: L0 pure_read, L1 local_compute, L2 workspace_write, L3 external_read,
 * L4 external_write, L5 destructive_or_admin. Declared on a descriptor, or derived ({@link levelOf}).
 */
export const PERMISSION_LEVELS = ["L0", "L1", "L2", "L3", "L4", "L5"] as const;
export const PermissionLevelSchema = z.enum(PERMISSION_LEVELS);
export type PermissionLevel = z.infer<typeof PermissionLevelSchema>;
export const LEVEL_NAMES: Readonly<Record<PermissionLevel, string>> = {
  L0: "pure_read",
  L1: "local_compute",
  L2: "workspace_write",
  L3: "external_read",
  L4: "external_write",
  L5: "destructive_or_admin",
};

/** Action types that only look: their tools must be `read`. */
export const LOOKING_ACTIONS: readonly ActionType[] = ["read", "search", "inspect", "memory_read"];
/** Action types that change or reach the world: never `read`. */
export const CHANGING_ACTIONS: readonly ActionType[] = ["write", "patch", "deploy", "external_send", "purchase", "delete", "admin", "auth", "memory_write"];
/** Action types an outsider sees at once or that cannot be taken back: always `send`. */
export const SENDING_ACTIONS: readonly ActionType[] = ["external_send", "purchase"];

interface LevelFacts {
  readonly grade: "read" | "write" | "send";
  readonly destructive: boolean;
  readonly openWorld: boolean;
  readonly actionType?: ActionType | undefined;
  readonly level?: PermissionLevel | undefined;
}

/**
 * A tool's permission level: the declared one, else derived from its action type, grade and flags
 * (destructive is always L5; a read that reaches outside is L3; a change that reaches outside L4).
 */
export function levelOf(d: LevelFacts): PermissionLevel {
  if (d.level !== undefined) return d.level;
  if (d.destructive) return "L5";
  const a = d.actionType;
  if (a === "delete" || a === "admin" || a === "auth") return "L5";
  if (a === "deploy" || a === "external_send" || a === "purchase") return "L4";
  if (a === "compute" || a === "transform" || a === "generate") return d.openWorld ? "L3" : "L1";
  if (d.grade === "read") return d.openWorld ? "L3" : "L0";
  if (d.grade === "send") return "L4";
  return d.openWorld ? "L4" : "L2";
}

/**
 * The permission scope a principal needs for a model's call of an L3 tool (external read) that
 * names no `requiredScopes` of its own: data from outside reaches a model only by a grant.
 */
export const EXTERNAL_READ_SCOPE = "external_read";

/**
 * Whether an L1 tool (local compute) runs inside a sandbox: a process the adapters confine (not one
 * marked trusted) in its own namespaces with no network (`network: none`). Only then does a model's
 * call run without asking.
 */
export function runsSandboxed(d: { readonly network?: "none" | "host" | undefined; readonly unconfined?: true | undefined }): boolean {
  return d.network === "none" && d.unconfined !== true;
}

/** Whether the executor masks personal data in the tool's results: declared, else for an L3 tool (external read). */
export function redactsPersonalData(d: LevelFacts & { readonly personalData?: "redact" | "keep" | undefined }): boolean {
  return d.personalData === undefined ? levelOf(d) === "L3" : d.personalData === "redact";
}
