import type { ApprovalGranted, ToolPolicyChecked } from "@warden/contracts/events";
import type { Outcome } from "@warden/contracts/errors";
import type { JsonValue } from "@warden/contracts/json";
import type { ExecutableTool } from "./define-tool.js";

/** The args of an authorised call and what they are bound to. */
export interface Binding {
  readonly args: JsonValue;
  readonly argsHash: string;
  readonly version: string;
  readonly descriptorHash: string;
  /** The principal the call runs for (the policy decision's `onBehalfOf`, else its own principal). */
  readonly onBehalfOf: string;
}

/** An event that lets a call run, with how to read its args and what to re-check before running. */
export interface Authorisation {
  readonly event: ToolPolicyChecked | ApprovalGranted;
  /** Reads the args and their binding; a failure is the reason the call is refused. */
  bind(): Promise<Outcome<Binding>>;
  /** Checks that must hold right before running (a grant's signature, expiry, hashes). */
  verify(binding: Binding, tool: ExecutableTool): Promise<Outcome<void>>;
}
