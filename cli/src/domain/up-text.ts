import type { PolicyDocument } from "@warden/contracts/policy";

export interface UpSummary {
  readonly url: string;
  /** WARDEN_HOME: keys, server config, credentials, env.json. */
  readonly home?: string;
  /** Identities with credentials in the home (`--as NAME` picks one). */
  readonly identities?: readonly string[];
  readonly startedNats: boolean;
  readonly storeDir?: string;
  readonly services: readonly string[];
  readonly demo: boolean;
  readonly tools: readonly string[];
  /** The skills added and run (WARDEN_SKILLS_DIR, or the example skills with --demo). */
  readonly skills?: readonly string[];
  readonly policyVersion?: string;
  /** Where /healthz, /readyz and /metrics are served (WARDEN_HEALTH_PORT). */
  readonly health?: string;
  /** A principal the policy lets approve sends, for the example commands. */
  readonly approver?: string;
}

/** A human principal of the policy that may approve `send` calls, for the examples. */
export function exampleApprover(policy: PolicyDocument | undefined): string | undefined {
  if (policy === undefined) return undefined;
  const humans = Object.entries(policy.principals).filter(([, p]) => p.kind === "human");
  return (humans.find(([, p]) => p.approves.includes("send")) ?? humans[0])?.[0];
}

/** What `warden up` prints once everything runs: where it is and what to try next. */
export function upText(s: UpSummary): string {
  const approver = s.approver ?? "<approver>";
  const nats = s.startedNats ? `${s.url} (nats-server started here, store ${s.storeDir ?? "?"})` : `${s.url} (from NATS_URL)`;
  const lines = [
    "Warden is up.",
    `  NATS      ${nats}`,
    `  services  ${s.services.join(", ")}`,
    `  tools     ${s.tools.length > 0 ? s.tools.join(", ") : "(none registered yet)"}`,
  ];
  if (s.skills !== undefined && s.skills.length > 0) lines.push(`  skills    ${s.skills.join(", ")}`);
  if (s.policyVersion) lines.push(`  policy    ${s.policyVersion}`);
  if (s.health) lines.push(`  health    ${s.health}/readyz, metrics at ${s.health}/metrics`);
  if (s.home) lines.push(`  home      ${s.home} (credentials of ${(s.identities ?? []).join(", ") || "no one yet"})`);
  lines.push("", "Try, in another terminal (commands find their credentials in the home):");
  if (s.demo) {
    lines.push(
      "  npx warden tools --mode llm --principal support-bot --explain",
      `  npx warden call kb.search --args '{"query":"refund"}' --mode llm --principal support-bot`,
      `  npx warden call customer.message --args '{"customerId":"c-1","text":"Your refund is on its way"}' --mode plan --principal support-bot`,
      `  npx warden inbox --as ${approver}     (the approval inbox in a browser: ${approver} approves or denies there)`,
      `  npx warden approvals --as ${approver}`,
      `  npx warden approve <approvalId> --as ${approver}     (or: deny <approvalId> --as ${approver} --reason "...")`,
      "  npx warden trace <callId>",
      `  npx warden call skill-refund-check.window --args '{"purchased":"2026-01-02"}' --mode plan --principal support-bot     (the refund-check skill's script, sandboxed)`,
      "  npx warden mcp --as support-bot --print-config claude-desktop     (or cursor, claude-code: Warden's tools in your MCP client)",
      `  npx warden call agent.triage --args '{"task":"Triage session 1"}' --principal ${approver}     (a subagent: needs OPENAI_BASE_URL, see docs/subagents.md)`,
    );
  } else {
    lines.push(
      "  npx warden tools --explain",
      `  npx warden call <domain.tool> --args '{}'`,
      "  npx warden approvals --as <person>",
      "  npx warden inbox --as <person>     (the approval inbox in a browser)",
      "  npx warden mcp --as <agent> --print-config claude-desktop     (or cursor, claude-code)",
      "  (start with --demo for the support-desk example domain)",
    );
  }
  lines.push("", "Ctrl-C stops everything.");
  return lines.join("\n");
}
