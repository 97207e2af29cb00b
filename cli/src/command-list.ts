import { CALLER_OPTIONS, JSON_OPTION, WHO_OPTIONS, type CommandInput, type OptionSpecs } from "./args.js";
import type { Command, CommandIo } from "./io.js";

/** A positional argument; every declared one is required. */
export interface ArgumentSpec {
  readonly name: string;
  readonly description: string;
}

/**
 * A command as the CLI declares it, once: the parser and `--help` are made from it. The module
 * that does the work is imported only when the command runs, so `warden help` (or a command that
 * fails on its arguments) loads none of the services, the MCP SDK or openai.
 */
export interface CommandSpec {
  readonly name: string;
  readonly summary: string;
  readonly arguments?: readonly ArgumentSpec[];
  readonly options?: OptionSpecs;
  /** Positional arguments beyond the declared ones reach the action, which says what they should be. */
  readonly extraArguments?: boolean;
  readonly subcommands?: readonly CommandSpec[];
  run?(input: CommandInput<OptionSpecs>, io: CommandIo): Promise<number>;
}

interface LeafSpec<O extends OptionSpecs> {
  readonly name: string;
  readonly summary: string;
  readonly arguments?: readonly ArgumentSpec[];
  readonly options: O;
  readonly extraArguments?: boolean;
  readonly subcommands?: readonly CommandSpec[];
  readonly run: Command<O>;
}

/** Ties a command's options to the type its action receives. */
function command<O extends OptionSpecs>(spec: LeafSpec<O>): CommandSpec {
  return spec;
}

const required = <S extends object>(spec: S) => ({ ...spec, required: true }) as const;

const PROJECTOR_WAIT = {
  "projector-wait": { type: "string", value: "DURATION", description: "how long the projector may take to reach the stream's end (default 5s)" },
} as const satisfies OptionSpecs;

const NOTARY_WAIT = {
  "notary-wait": { type: "string", value: "DURATION", description: "how long the notary may take to seal the stream's end (default 10s)" },
} as const satisfies OptionSpecs;

export const UP_OPTIONS = {
  ...JSON_OPTION,
  demo: { type: "boolean", description: "also start the support-desk demo, its policy and its people" },
  "nats-port": { type: "string", value: "N", description: "port of the nats-server it starts (0 picks a free one)" },
  insecure: { type: "boolean", description: "go on with a NATS_URL server that lets unauthenticated clients publish" },
} as const satisfies OptionSpecs;

const VIEW_OPTIONS = {
  ...JSON_OPTION,
  ...CALLER_OPTIONS,
  ...WHO_OPTIONS,
  format: { type: "string", value: "FORMAT", description: "openai (Chat Completions), openai-responses, anthropic, mcp or table (default table)" },
  explain: { type: "boolean", description: "also list the hidden tools and why each is hidden" },
} as const satisfies OptionSpecs;

export const TOOLS_VIEW_OPTIONS = {
  ...VIEW_OPTIONS,
  "max-tools": { type: "string", value: "N", description: "show at most N tools, ranked (default: the policy's views.maxTools, else 20)" },
} as const satisfies OptionSpecs;

export const RESOLVE_OPTIONS = {
  ...VIEW_OPTIONS,
  goal: { type: "string", value: "TEXT", required: true, description: "what the caller wants done (its words are matched against the tools)" },
  task: { type: "string", value: "TEXT", description: "the step within the goal" },
  target: { type: "string", value: "TEXT", description: "what the action is on (a customer, a ticket)" },
  domain: { type: "string", value: "D", description: "only tools of this domain" },
  grade: { type: "string", value: "G", description: "only tools of this grade: read, write or send" },
  "action-type": { type: "string", value: "A", description: "the kind of action wanted (search, patch, external_send, …): tools that declare it rank first" },
  "max-level": { type: "string", value: "L", description: "only tools at this permission level or below: L0 … L5" },
  limit: { type: "string", value: "N", description: "at most this many candidates (default 5)" },
} as const satisfies OptionSpecs;

export const TOOLS_STATUS_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  version: { type: "string", value: "V", description: "only this version (default every version)" },
} as const satisfies OptionSpecs;

export const CALL_OPTIONS = {
  ...JSON_OPTION,
  ...CALLER_OPTIONS,
  ...WHO_OPTIONS,
  args: { type: "string", value: "JSON", description: "the tool's arguments as JSON (default {})" },
  version: { type: "string", value: "V", description: "call this version of the tool" },
  wait: { type: "boolean", description: "wait through an approval for the call's end" },
  timeout: { type: "string", value: "DURATION", description: "how long to wait, e.g. 500ms, 30s, 2m (default 30s)" },
  "run-id": { type: "string", value: "ID", description: "the run the call belongs to (budgets span a run)" },
  goal: { type: "string", value: "TEXT", description: "what the call is for (intent; shown on the approval card, in trace and audit)" },
  why: { type: "string", value: "TEXT", description: "why this call serves the goal (intent.rationale; needs --goal)" },
  expects: { type: "string", value: "TEXT", description: "what the call should change (intent.expectedEffect; needs --goal)" },
} as const satisfies OptionSpecs;

export const MCP_OPTIONS = {
  ...WHO_OPTIONS,
  mode: { type: "string", value: "MODE", description: "how the session's calls are decided: llm (default: a model chooses), plan or human" },
  scope: { type: "string", value: "S", description: "the session's scope" },
  flags: { type: "string", value: "k=v,k2=v2", description: "feature flags the session turns off (false); a flag cannot be turned on" },
  http: { type: "boolean", description: "serve streamable HTTP instead of stdio (one MCP session per client)" },
  host: { type: "string", value: "H", description: "with --http: the address to listen on (default 127.0.0.1)" },
  port: { type: "string", value: "N", description: "with --http: the port (default 8765; 0 picks a free one, printed on stderr)" },
  timeout: { type: "string", value: "DURATION", description: "how long a tools/call of a client without tasks waits for the call's end, through an approval, before it answers still-running with a warden://calls/<id> handle (default 30s)" },
  "never-confirm": { type: "boolean", description: "never ask the session's own person to confirm a call in the client (MCP elicitation)" },
  "print-config": { type: "string", value: "CLIENT", description: "print what to add to claude-desktop, cursor or claude-code to start this session, and exit" },
} as const satisfies OptionSpecs;

export const APPROVALS_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  as: required({ ...WHO_OPTIONS.as, description: "whose approval inbox (a person, e.g. alice)" }),
  watch: { type: "boolean", description: "stay and print each new approval request as it comes (one line each; --json: one JSON object a line); Ctrl-C stops" },
  durable: { type: "string", value: "NAME", description: "with --watch: resume under this name where the last watch left off (default cli; requests made while no watch ran come first)" },
  webhook: { type: "string", value: "URL", description: "with --watch: also POST each new card as JSON to this URL (loopback, or https on an allowed host)" },
  "webhook-allow": { type: "string", value: "HOSTS", description: "with --webhook: hosts besides loopback cards may go to, comma-separated (default WARDEN_WEBHOOK_ALLOW_HOSTS)" },
} as const satisfies OptionSpecs;

export const DECIDE_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  as: required({ ...WHO_OPTIONS.as, description: "who decides (a person, e.g. alice)" }),
  reason: { type: "string", value: "R", description: "why (required to deny)" },
  "args-hash": { type: "string", value: "H", description: "the argsHash of the args you saw (default: the one in your inbox)" },
  args: { type: "string", value: "JSON", description: "approve these edited args instead (re-validated; the grant binds them and they run)" },
  session: { type: "string", value: "DURATION", description: "also grant for the session: later calls of this principal, mode and tool version run without asking for DURATION (90s, 30m, 1h)" },
  "session-closed": { type: "boolean", description: "with --session: later calls may have no argument this call does not have" },
  "session-args": {
    type: "string",
    value: "JSON",
    description: 'with --session: what later calls\' args must be, by name: {"customerId":{"equals":"C-1"},"amount":{"max":50}} (also oneOf, prefix, min); default any args',
  },
} as const satisfies OptionSpecs;

export const CANCEL_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  as: required({ ...WHO_OPTIONS.as, description: "who cancels: the call's requester, or an operator the policy document names" }),
  reason: { type: "string", value: "R", description: "why (recorded on the ToolCallCancelled)" },
} as const satisfies OptionSpecs;

export const UNDO_OPTIONS = {
  ...JSON_OPTION,
  ...CALLER_OPTIONS,
  ...WHO_OPTIONS,
  wait: { type: "boolean", description: "wait through an approval for the undo's end" },
  timeout: { type: "string", value: "DURATION", description: "how long to wait, e.g. 500ms, 30s, 2m (default 30s)" },
} as const satisfies OptionSpecs;

export const REVOKE_OPTIONS = {
  ...CANCEL_OPTIONS,
  as: required({ ...WHO_OPTIONS.as, description: "who revokes: the person who granted, or an operator the policy document names" }),
  session: { type: "boolean", description: "revoke the session grant made on CALL_ID (`warden sessions` lists them) instead of the call's own grant" },
} as const satisfies OptionSpecs;

export const SESSIONS_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  as: required({ ...WHO_OPTIONS.as, description: "whose session grants (a person; an operator sees every one)" }),
} as const satisfies OptionSpecs;

export const STATUS_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
} as const satisfies OptionSpecs;

export const INBOX_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  as: required({ ...WHO_OPTIONS.as, description: "whose inbox: the page decides as this person and nobody else" }),
  port: { type: "string", value: "N", description: "the port on 127.0.0.1 (default 0: a free one; the URL is printed)" },
  host: {
    type: "string",
    value: "H",
    description: "the address to listen on (default 127.0.0.1); the page still answers only requests to 127.0.0.1:PORT, as a container published on the host's loopback gets them",
  },
  refresh: { type: "string", value: "DURATION", description: "how often the inbox is read besides new requests (default 3s)" },
  "session-idle": { type: "string", value: "DURATION", description: "the page's session ends after this long without a request (default 12h); then restart for a new URL" },
} as const satisfies OptionSpecs;

const WIDE = {
  wide: { type: "boolean", description: "print every value whole (full hashes, ids and times), however wide; by default lines fit 100 columns" },
} as const satisfies OptionSpecs;

export const TRACE_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  ...WIDE,
  html: { type: "string", value: "FILE", description: "also write the call's timeline as one self-contained HTML page (no network: stages as bars on a time axis, approvals, child calls nested)" },
} as const satisfies OptionSpecs;

export const ARTIFACT_GET_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  out: { type: "string", value: "FILE", description: "write the artifact's bytes to this file (default: print it, when it is text)" },
  call: { type: "string", value: "CALL_ID", description: "the call whose result records the artifact (default: the id's start, `<callId>.output.json`)" },
} as const satisfies OptionSpecs;

export const AUDIT_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  jsonl: { type: "boolean", description: "one JSON line per call (findings that concern no call on stderr); the same as --format jsonl" },
  format: { type: "string", value: "FORMAT", description: "table (default), json, jsonl or csv (RFC 4180 with a header row; findings that concern no call on stderr)" },
  ...WIDE,
  since: { type: "string", value: "T", description: "from this time: ISO time, or 15m / 2h / 7d ago" },
  until: { type: "string", value: "T", description: "up to this time: ISO time, or 15m / 2h / 7d ago" },
  principal: { type: "string", value: "P", description: "only calls of this principal" },
  tool: { type: "string", value: "T", description: "only calls of this tool" },
  domain: { type: "string", value: "D", description: "only calls in this domain" },
  mode: { type: "string", value: "M", description: "only calls in this mode: human, llm or plan" },
  outcome: { type: "string", value: "S", description: "only calls in this state (e.g. succeeded, denied, outcome_unknown)" },
  verify: { type: "boolean", description: "check the calls against the invariants; exit 1 names each violation (and a projector behind the stream's end)" },
  policy: { type: "string", value: "FILE", description: "verify against this policy document instead of the stored one" },
  file: { type: "string", value: "FILE", description: "with --verify: audit an export (`audit export`) instead of the stream, with no bus" },
  keys: { type: "string", value: "FILE", description: "the pinned public keys to verify with (`audit keys`); default WARDEN_HOME's" },
  head: { type: "string", value: "FILE", description: "with --file: the notary's head log (heads.jsonl, copied from its key folder): reports an export older than it or re-sealed" },
  ...PROJECTOR_WAIT,
  ...NOTARY_WAIT,
} as const satisfies OptionSpecs;

export const AUDIT_EXPORT_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  out: { type: "string", value: "FILE", description: "the file to write: JSONL of checkpoints and the messages they seal (with --otlp: OTLP JSON, one request a line)" },
  since: { type: "string", value: "T", description: "from this time (widened to whole checkpoints; with --otlp, calls requested since): ISO time, or 15m / 2h / 7d ago" },
  until: { type: "string", value: "T", description: "up to this time (widened to whole checkpoints; with --otlp, calls requested until)" },
  otlp: { type: "boolean", description: "export the calls' OpenTelemetry spans, rebuilt from their events, instead of the evidence" },
  endpoint: { type: "string", value: "URL", description: "with --otlp: post OTLP/HTTP JSON to <URL>/v1/traces (default OTEL_EXPORTER_OTLP_ENDPOINT) instead of --out" },
  ...NOTARY_WAIT,
} as const satisfies OptionSpecs;

export const AUDIT_KEYS_OPTIONS = {
  ...JSON_OPTION,
  out: { type: "string", value: "FILE", description: "write the keys file here (default: print it)" },
} as const satisfies OptionSpecs;

export const REPLAY_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  rebuild: { type: "boolean", description: "write the rebuilt models into fresh buckets <bucket>_<suffix>" },
  suffix: { type: "string", value: "S", description: "the suffix of the rebuilt buckets (default rebuild)" },
  "to-seq": { type: "string", value: "N", description: "replay up to this stream sequence (default the stream's end)" },
  ...PROJECTOR_WAIT,
} as const satisfies OptionSpecs;

export const POLICY_OPTIONS = { ...JSON_OPTION, ...WHO_OPTIONS } as const satisfies OptionSpecs;

export const POLICY_SET_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  yes: { type: "boolean", description: "apply without asking (scripts; without a terminal it is required)" },
  "dry-run": { type: "boolean", description: "show the changes and the what-if, store nothing" },
  since: { type: "string", value: "T", description: "replay the calls requested from this time in the what-if: ISO time, or 15m / 2h / 7d ago (default 1d)" },
} as const satisfies OptionSpecs;

export const POLICY_HISTORY_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  limit: { type: "string", value: "N", description: "the last N changes (default 20)" },
} as const satisfies OptionSpecs;

export const BUDGETS_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  ledger: { type: "string", value: "ID", description: "only this ledger of budgets.ledgers" },
} as const satisfies OptionSpecs;

const TOOLS_FILE = {
  tools: { type: "string", value: "FILE", description: "the tools' descriptors from this file (`warden tools list --json`, a tool manifest, or a JSON/YAML list of descriptors) instead of the registry" },
} as const satisfies OptionSpecs;

export const POLICY_CHECK_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  ...TOOLS_FILE,
  offline: { type: "boolean", description: "do not ask the registry: tool and domain names are not checked" },
  strict: { type: "boolean", description: "exit 1 on warnings too" },
} as const satisfies OptionSpecs;

export const POLICY_DECIDE_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  ...TOOLS_FILE,
  request: {
    type: "string",
    value: "JSON",
    required: true,
    description: 'the request: {"tool","principal","mode"} and optional version, flags, scope, args, runId, parentCallId, callId, at, treeRoot; or a recorded ToolCallRequested event; @FILE reads it from a file',
  },
  history: {
    type: "string",
    value: "FILE",
    description: "earlier calls (a JSON or YAML list of { callId, tool, principal, runId, args, at, outcome }) to decide the rules' history conditions and the run's data labels from",
  },
  "history-from-stream": {
    type: "boolean",
    description: "decide the history conditions from the calls recorded on the stream (read as the auditor reads it), not from a file",
  },
  since: { type: "string", value: "T", description: "with --history-from-stream: read from this time: ISO time, or 15m / 2h / 7d ago (default the longest rule window before the request)" },
} as const satisfies OptionSpecs;

export const POLICY_WHATIF_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  since: { type: "string", value: "T", description: "calls requested from this time: ISO time, or 15m / 2h / 7d ago (default the stream's start)" },
  until: { type: "string", value: "T", description: "calls requested up to this time: ISO time, or 15m / 2h / 7d ago (default now)" },
  principal: { type: "string", value: "P", description: "only calls of this principal" },
  tool: { type: "string", value: "T", description: "only calls of this tool (a glob: crm.*)" },
  examples: { type: "string", value: "N", description: "example calls shown per change (default 3)" },
} as const satisfies OptionSpecs;

export const TOOLS_LIST_OPTIONS = { ...JSON_OPTION, ...WHO_OPTIONS } as const satisfies OptionSpecs;

export const REGISTER_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  status: { type: "string", value: "S", description: "register as enabled, discovered or disabled (default the manifest's)" },
  discover: { type: "boolean", description: "also start the manifest's MCP server once and register what it offers" },
  "dry-run": { type: "boolean", description: "only validate the manifest and print the descriptors" },
} as const satisfies OptionSpecs;

export const SKILLS_ADD_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  "dry-run": { type: "boolean", description: "only check the folder and show its tools and content hash" },
} as const satisfies OptionSpecs;

export const SKILLS_LIST_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  all: { type: "boolean", description: "every stored version (default the newest of each skill)" },
} as const satisfies OptionSpecs;

export const SKILLS_SHOW_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  version: { type: "string", value: "V", description: "this version (default the newest)" },
} as const satisfies OptionSpecs;

export const PRINCIPAL_ADD_OPTIONS = {
  ...JSON_OPTION,
  kind: { type: "string", value: "KIND", required: true, description: "agent, human, executor (with --domains), service (with --role), auditor or policy-author" },
  domains: { type: "string", value: "D,..", description: "the domains an executor serves" },
  role: { type: "string", value: "R", description: "a service's role" },
} as const satisfies OptionSpecs;

export const PROVISION_OPTIONS = {
  ...JSON_OPTION,
  out: { type: "string", value: "DIR", required: true, description: "where the home, the server files and the identity folders go" },
  demo: { type: "boolean", description: "also the demo's identities" },
  url: { type: "string", value: "U", description: "the servers' URL(s) written into the home" },
  routes: { type: "string", value: "h:p,..", description: "cluster routes: also writes server/cluster.conf with a route secret" },
  owner: { type: "string", value: "UID:GID", description: "owner of each identity folder (for containers)" },
  "nats-version": {
    type: "string",
    value: "X.Y",
    description: "the nats-server release the nodes run, for server/jetstream.conf (default: this machine's `nats-server --version`, else 2.12)",
  },
} as const satisfies OptionSpecs;

export const TOPOLOGY_OPTIONS = {
  ...JSON_OPTION,
  ...WHO_OPTIONS,
  demo: { type: "boolean", description: "store the support-desk policy when no policy document is stored" },
} as const satisfies OptionSpecs;

const NAME = { name: "NAME", description: "the identity's name" };
const TOOL_NAME = { name: "NAME", description: "the tool, e.g. kb.reindex" };
const APPROVAL_ID = { name: "APPROVAL_ID", description: "from `warden approvals`" };
const POLICY_FILE = { name: "FILE", description: "a JSON or YAML policy document" };

/** Every `warden` command, in the order help lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  command({
    name: "up",
    summary: "start a secured nats-server (or use NATS_URL), every service and the demo; keys and credentials in WARDEN_HOME (./.warden); Ctrl-C stops",
    options: UP_OPTIONS,
    run: async (input, io) => (await import("./commands/up.js")).upCommand(input, io),
  }),
  command({
    name: "resolve",
    summary: "which tools serve an intent: ranked candidates (with why) among what the caller may see, and a view of just those",
    options: RESOLVE_OPTIONS,
    run: async (input, io) => (await import("./commands/resolve.js")).resolveCommand(input, io),
  }),
  command({
    name: "tools",
    summary: "the tools a caller may see, and (--explain) why others are hidden",
    options: TOOLS_VIEW_OPTIONS,
    extraArguments: true,
    run: async (input, io) => (await import("./commands/tools.js")).toolsViewCommand(input, io),
    subcommands: [
      command({
        name: "list",
        summary: "every registered tool version: descriptor, hash and status (--json is a tools file for `policy check|decide --tools`)",
        options: TOOLS_LIST_OPTIONS,
        run: async (input, io) => (await import("./commands/tools.js")).toolsListCommand(input, io),
      }),
      command({
        name: "enable",
        summary: "enable a tool (every version, or one)",
        arguments: [TOOL_NAME],
        options: TOOLS_STATUS_OPTIONS,
        run: async (input, io) => (await import("./commands/tools.js")).toolsEnableCommand(input, io),
      }),
      command({
        name: "disable",
        summary: "disable a tool (every version, or one)",
        arguments: [TOOL_NAME],
        options: TOOLS_STATUS_OPTIONS,
        run: async (input, io) => (await import("./commands/tools.js")).toolsDisableCommand(input, io),
      }),
    ],
  }),
  command({
    name: "call",
    summary: "ask for a tool call; returns at its end, or when it needs approval unless --wait",
    arguments: [{ name: "TOOL", description: "the tool, e.g. kb.search" }],
    options: CALL_OPTIONS,
    run: async (input, io) => (await import("./commands/call.js")).callCommand(input, io),
  }),
  command({
    name: "mcp",
    summary: "an MCP server (stdio, or --http) exposing one identity's ToolView as tools; every tools/call is a governed call",
    options: MCP_OPTIONS,
    run: async (input, io) => (await import("./commands/mcp.js")).mcpCommand(input, io),
  }),
  command({
    name: "approvals",
    summary: "calls waiting for a person to decide, with the argsHash a decision echoes",
    options: APPROVALS_OPTIONS,
    run: async (input, io) => (await import("./commands/approvals.js")).approvalsCommand(input, io),
  }),
  command({
    name: "approve",
    summary: "grant an approval",
    arguments: [APPROVAL_ID],
    options: DECIDE_OPTIONS,
    run: async (input, io) => (await import("./commands/decide.js")).approveCommand(input, io),
  }),
  command({
    name: "cancel",
    summary: "cancel a call that has not started (its requester, or an operator); it never runs",
    arguments: [{ name: "CALL_ID", description: "the call's id" }],
    options: CANCEL_OPTIONS,
    run: async (input, io) => (await import("./commands/cancel.js")).cancelCommand(input, io),
  }),
  command({
    name: "undo",
    summary: "undo a call that succeeded, by the compensation its tool declares: a governed call of its own, linked to it; once per call",
    arguments: [{ name: "CALL_ID", description: "the call's id (its requester undoes it)" }],
    options: UNDO_OPTIONS,
    run: async (input, io) => (await import("./commands/undo.js")).undoCommand(input, io),
  }),
  command({
    name: "revoke",
    summary: "revoke your grant of a call that has not started yet (the call then never runs), or with --session the session grant made on it",
    arguments: [{ name: "CALL_ID", description: "the call's id (from `warden approve`, or a session grant's id from `warden sessions`)" }],
    options: REVOKE_OPTIONS,
    run: async (input, io) => (await import("./commands/cancel.js")).revokeCommand(input, io),
  }),
  command({
    name: "sessions",
    summary: "the session grants in force that you made (an operator: all), with what they cover and until when",
    options: SESSIONS_OPTIONS,
    run: async (input, io) => (await import("./commands/sessions.js")).sessionsCommand(input, io),
  }),
  command({
    name: "deny",
    summary: "deny an approval (--reason is required)",
    arguments: [APPROVAL_ID],
    options: DECIDE_OPTIONS,
    run: async (input, io) => (await import("./commands/decide.js")).denyCommand(input, io),
  }),
  command({
    name: "inbox",
    summary: "a web page on 127.0.0.1 with your pending approvals, live: approve or deny from the keyboard; and your calls with their timelines (prints the URL with its token)",
    options: INBOX_OPTIONS,
    run: async (input, io) => (await import("./commands/inbox.js")).inboxCommand(input, io),
  }),
  command({
    name: "trace",
    summary: "a call's timeline: who did what, which rule, approver, result, child calls",
    arguments: [{ name: "CALL_ID", description: "the call's id, or an approval id (the call it belongs to)" }],
    options: TRACE_OPTIONS,
    run: async (input, io) => (await import("./commands/trace.js")).traceCommand(input, io),
  }),
  {
    name: "artifact",
    summary: "a call's stored output (warden_artifacts), checked against the sha256 its event records",
    subcommands: [
      command({
        name: "get",
        summary: "fetch an artifact and check it against the sha256 of the event that records it; refuses a mismatch",
        arguments: [{ name: "ARTIFACT_ID", description: "from `warden trace` (artifacts=…), e.g. <callId>.output.json" }],
        options: ARTIFACT_GET_OPTIONS,
        run: async (input, io) => (await import("./commands/artifact.js")).artifactGetCommand(input, io),
      }),
    ],
  },
  command({
    name: "status",
    summary: "services up (with versions), executors alive per domain, stage lag, dead letters, approvals waiting, the stream and the policy version",
    options: STATUS_OPTIONS,
    run: async (input, io) => (await import("./commands/status.js")).statusCommand(input, io),
  }),
  command({
    name: "audit",
    summary: "the calls requested in a time range, replayed from the stream; --verify checks them and the history's evidence",
    options: AUDIT_OPTIONS,
    run: async (input, io) => (await import("./commands/audit.js")).auditCommand(input, io),
    subcommands: [
      command({
        name: "export",
        summary: "write the notary's checkpoints and the messages they seal to a JSONL file, to verify with no bus; --otlp: the calls' spans, to a collector or a file",
        options: AUDIT_EXPORT_OPTIONS,
        run: async (input, io) => (await import("./commands/audit-export.js")).auditExportCommand(input, io),
      }),
      command({
        name: "keys",
        summary: "the public keys pinned in WARDEN_HOME (notary, approvers): the file an auditor verifies with",
        options: AUDIT_KEYS_OPTIONS,
        run: async (input, io) => (await import("./commands/audit-export.js")).auditKeysCommand(input, io),
      }),
    ],
  }),
  command({
    name: "replay",
    summary: "rebuild every read model from the stream and compare digests with the live models; exit 1 if they differ or the projector is behind",
    options: REPLAY_OPTIONS,
    run: async (input, io) => (await import("./commands/replay.js")).replayCommand(input, io),
  }),
  {
    name: "policy",
    summary: "the policy document: check, decide, what-if, store, show, history",
    subcommands: [
      command({
        name: "check",
        summary: "validate a policy document (errors at file:line:column) and lint it against the registry; exit 1 on errors (--strict: on warnings too)",
        arguments: [POLICY_FILE],
        options: POLICY_CHECK_OPTIONS,
        run: async (input, io) => (await import("./commands/policy-check.js")).policyCheckCommand(input, io),
      }),
      command({
        name: "decide",
        summary: "what the document decides for one request, its rules, reason and the caller's ToolView; no bus needed with --tools",
        arguments: [POLICY_FILE],
        options: POLICY_DECIDE_OPTIONS,
        run: async (input, io) => (await import("./commands/policy-decide.js")).policyDecideCommand(input, io),
      }),
      command({
        name: "whatif",
        summary: "replay the recorded calls through a candidate document: every call whose decision would change, grouped by rule (reads the stream, runs nothing)",
        arguments: [{ name: "FILE", description: "the candidate policy document (JSON or YAML)" }],
        options: POLICY_WHATIF_OPTIONS,
        run: async (input, io) => (await import("./commands/policy-whatif.js")).policyWhatifCommand(input, io),
      }),
      command({
        name: "set",
        summary: "show the changes against the document in force and the what-if of the last day, ask, then store it (services reload it at once) and record who changed it",
        arguments: [POLICY_FILE],
        options: POLICY_SET_OPTIONS,
        run: async (input, io) => (await import("./commands/policy.js")).policySetCommand(input, io),
      }),
      command({
        name: "history",
        summary: "who changed the policy document, when and to what; revisions stored without a record",
        options: POLICY_HISTORY_OPTIONS,
        run: async (input, io) => (await import("./commands/policy.js")).policyHistoryCommand(input, io),
      }),
      command({
        name: "show",
        summary: "the policy document in force",
        options: POLICY_OPTIONS,
        run: async (input, io) => (await import("./commands/policy.js")).policyShowCommand(input, io),
      }),
    ],
  },
  command({
    name: "budgets",
    summary: "the ledger budgets (budgets.ledgers): spent, held and left per holder this period, and when each resets",
    options: BUDGETS_OPTIONS,
    run: async (input, io) => (await import("./commands/budgets.js")).budgetsCommand(input, io),
  }),
  command({
    name: "register",
    summary: "validate a tool manifest (CLI, HTTP, MCP) and register its tools",
    arguments: [{ name: "FILE", description: "a YAML or JSON tool manifest" }],
    options: REGISTER_OPTIONS,
    run: async (input, io) => (await import("./commands/register.js")).registerCommand(input, io),
  }),
  {
    name: "skills",
    summary: "skills: SKILL.md folders that teach an agent a procedure; their scripts become graded tools",
    subcommands: [
      command({
        name: "add",
        summary: "check a skill folder (errors at SKILL.md:line), register its scripts as tools of domain skill-<name> and store the skill",
        arguments: [{ name: "DIR", description: "a skill folder: SKILL.md, scripts/, references/" }],
        options: SKILLS_ADD_OPTIONS,
        run: async (input, io) => (await import("./commands/skills.js")).skillsAddCommand(input, io),
      }),
      command({
        name: "list",
        summary: "the stored skills: version, scripts with their grades, content hash, when to use them",
        options: SKILLS_LIST_OPTIONS,
        run: async (input, io) => (await import("./commands/skills.js")).skillsListCommand(input, io),
      }),
      command({
        name: "show",
        summary: "one skill: what activates it, its scripts, files and instructions",
        arguments: [{ name: "NAME", description: "the skill, e.g. pdf-report" }],
        options: SKILLS_SHOW_OPTIONS,
        run: async (input, io) => (await import("./commands/skills.js")).skillsShowCommand(input, io),
      }),
    ],
  },
  {
    name: "principal",
    summary: "identities in WARDEN_HOME: add, revoke, list",
    subcommands: [
      command({
        name: "add",
        summary: "mint an identity's credentials (no restart needed)",
        arguments: [NAME],
        options: PRINCIPAL_ADD_OPTIONS,
        run: async (input, io) => (await import("./commands/principal.js")).principalAddCommand(input, io),
      }),
      command({
        name: "revoke",
        summary: "the server refuses NAME's credentials from now on",
        arguments: [NAME],
        options: JSON_OPTION,
        run: async (input, io) => (await import("./commands/principal.js")).principalRevokeCommand(input, io),
      }),
      command({
        name: "list",
        summary: "the identities in WARDEN_HOME",
        options: JSON_OPTION,
        run: async (input, io) => (await import("./commands/principal.js")).principalListCommand(input, io),
      }),
    ],
  },
  command({
    name: "provision",
    summary: "offline: keys, server auth files, one credentials folder per identity",
    options: PROVISION_OPTIONS,
    run: async (input, io) => (await import("./commands/provision.js")).provisionCommand(input, io),
  }),
  command({
    name: "topology",
    summary: "as the admin: create and check the streams and buckets (WARDEN_REPLICAS)",
    options: TOPOLOGY_OPTIONS,
    run: async (input, io) => (await import("./commands/topology.js")).topologyCommand(input, io),
  }),
];

/** Printed after the command list of `warden --help`. */
export const HELP_FOOTER = `
Who acts: --as NAME (credentials from WARDEN_HOME/env.json), --creds FILE or NATS_CREDS; call and
  tools act as --principal; mcp as the identity its credentials name; operator commands (status,
  trace, audit, artifact, replay, policy, budgets, register, skills, tools list|enable|disable,
  topology) as admin; \`policy check --offline\` and \`policy decide --tools FILE\` need no connection.
Exit codes: 0 ok, 1 refused / failed / bad usage, 2 NATS unreachable, 3 the call waits for a person.
\`warden <command> --help\` shows a command's options.`;
