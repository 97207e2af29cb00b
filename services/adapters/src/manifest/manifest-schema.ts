import { z } from "zod";
import { DomainSchema, TokenSchema, VersionSchema } from "@warden/contracts/subjects";
import { ToolDescriptorSchema } from "@warden/contracts/descriptor";
import { JsonValueSchema } from "@warden/contracts/json";
import { OUTPUT_PARSERS } from "../domain/output-parsers.js";
import { checkManifest } from "./manifest-checks.js";

const MiB = 1024 * 1024;
const EnvNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name is letters, digits and _");
const HeaderNameSchema = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "not a valid HTTP header name");
const ArgNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, "an argument name");
export const NetworkSchema = z.enum(["none", "host"]);

/** Which variables of the executor's environment a process may see, and fixed ones to set. */
export const EnvSpecSchema = z.strictObject({
  allow: z.array(EnvNameSchema).default([]),
  set: z.record(EnvNameSchema, z.string()).default({}),
});

/**
 * Where a secret's value comes from: an environment variable of the executor, or a key of the
 * secrets file. `bind: principal`: that key holds a map of principal → value and each call gets
 * the value of the principal it runs for (docs/security.md); only a file key can be.
 */
export const SecretSourceSchema = z
  .strictObject({ name: TokenSchema, env: EnvNameSchema.optional(), file: z.string().min(1).optional(), bind: z.enum(["executor", "principal"]).default("executor") })
  .refine((s) => (s.env === undefined) !== (s.file === undefined), "give exactly one of env (a variable) or file (a key of the secrets file)")
  .refine((s) => s.bind !== "principal" || s.env === undefined, { message: "a secret bound to the principal comes from a key of the secrets file (file: a map of principal: value), not an environment variable", path: ["bind"] });
export type SecretSource = z.infer<typeof SecretSourceSchema>;

/** How a tool gets a secret: as an environment variable of its process, or as an HTTP header. */
export const SecretUseSchema = z
  .strictObject({ secret: TokenSchema, env: EnvNameSchema.optional(), header: HeaderNameSchema.optional(), prefix: z.string().default("") })
  .refine((s) => (s.env === undefined) !== (s.header === undefined), "give exactly one of env or header");
export type SecretUse = z.infer<typeof SecretUseSchema>;

export const ArgvElementSchema = z.union([
  z.string(),
  z.strictObject({ spread: ArgNameSchema }),
  z.strictObject({ when: ArgNameSchema, argv: z.array(z.string()).min(1) }),
]);

export const CliSectionSchema = z.strictObject({
  /** An absolute path, a path relative to the manifest, or a name looked up on the process's PATH. */
  command: z.string().min(1),
  argv: z.array(ArgvElementSchema).default([]),
  /** The process runs only in these directories (relative to the manifest); the first is the default. */
  roots: z.array(z.string().min(1)).min(1),
  /** A template; must resolve inside a root. */
  cwd: z.string().min(1).optional(),
  env: EnvSpecSchema.default({ allow: [], set: {} }),
  network: NetworkSchema.default("none"),
  /** Runs unconfined, as the adapters' own user with their view of the files, where the tools' sandbox is unavailable or too tight: only for code the operator trusts as much as the adapters. */
  trusted: z.boolean().default(false),
  output: z.enum(OUTPUT_PARSERS).default("text"),
  okExitCodes: z.array(z.int().min(0).max(255)).min(1).default([0]),
  maxStdoutBytes: z.int().min(1).max(64 * MiB).default(MiB),
  maxStderrBytes: z.int().min(1).max(16 * MiB).default(64 * 1024),
});
export type CliSection = z.infer<typeof CliSectionSchema>;

export const HttpSectionSchema = z.strictObject({
  method: z.string().min(1).default("GET"),
  url: z.string().min(1),
  query: z.record(z.string(), z.string()).optional(),
  headers: z.record(HeaderNameSchema, z.string()).optional(),
  body: JsonValueSchema.optional(),
  allowHosts: z.array(z.string().min(1)).min(1),
  response: z.enum(["auto", "json", "text"]).default("auto"),
  maxResponseBytes: z.int().min(1).max(64 * MiB).default(MiB),
});
export type HttpSection = z.infer<typeof HttpSectionSchema>;

/**
 * A command run around a call (preCall, verify, postCall): sandboxed like a CLI tool with no
 * network, given the call as JSON on stdin; exit 0 goes ahead, any other exit refuses with the
 * first line of stderr. Its argv is fixed (no placeholders): the args come on stdin.
 */
export const HookCommandSchema = z.strictObject({
  /** An absolute path, a path relative to the manifest, or a name looked up on the process's PATH. */
  command: z.string().min(1),
  argv: z.array(z.string()).default([]),
  /** Where it runs (relative to the manifest; the first is its working directory); default: a CLI tool's roots. */
  roots: z.array(z.string().min(1)).min(1).optional(),
  env: EnvSpecSchema.default({ allow: [], set: {} }),
  /** Runs unconfined where the tools' sandbox is unavailable or too tight (see a CLI tool's `trusted`). */
  trusted: z.boolean().default(false),
});
export type HookCommand = z.infer<typeof HookCommandSchema>;

/**
 * A tool's dry run, shown on the approval card. A CLI tool's is a command (`argv`, templated as
 * the tool's, and optionally another `command`) run in the tool's sandbox; an HTTP tool's is a
 * GET or HEAD request (`url`, `query`, `headers`) to the tool's allowed hosts.
 */
export const ToolPreviewSchema = z.strictObject({
  command: z.string().min(1).optional(),
  argv: z.array(ArgvElementSchema).optional(),
  method: z.string().min(1).optional(),
  url: z.string().min(1).optional(),
  query: z.record(z.string(), z.string()).optional(),
  headers: z.record(HeaderNameSchema, z.string()).optional(),
});
export type ToolPreview = z.infer<typeof ToolPreviewSchema>;

/** The hooks a tool entry (or an MCP tool's override) may declare. */
const hookFields = {
  verify: HookCommandSchema.optional(),
  preCall: HookCommandSchema.optional(),
  postCall: HookCommandSchema.optional(),
};
export type ToolHooks = { readonly [K in keyof typeof hookFields]?: HookCommand | undefined };

/** A tool of a manifest: its descriptor (name may omit the domain) plus one adapter section. */
export const ToolEntrySchema = ToolDescriptorSchema.omit({ name: true, network: true, secrets: true, preview: true, verify: true, actsAs: true }).extend({
  name: z.string().min(1),
  cli: CliSectionSchema.optional(),
  http: HttpSectionSchema.optional(),
  secrets: z.array(SecretUseSchema).default([]),
  preview: ToolPreviewSchema.optional(),
  ...hookFields,
});
export type ToolEntry = z.infer<typeof ToolEntrySchema>;

const McpOverrideSchema = z.strictObject({
  grade: z.enum(["read", "write", "send"]).optional(),
  destructive: z.boolean().optional(),
  idempotent: z.boolean().optional(),
  openWorld: z.boolean().optional(),
  timeoutMs: z.int().min(1).max(3_600_000).optional(),
  maxOutputBytes: z.int().min(1).max(64 * MiB).optional(),
  /** Permission scopes a caller must hold (a model's open-world read needs one: else `external_read`). */
  requiredScopes: z.array(z.string().regex(/^[A-Za-z0-9_:-]{1,64}$/, "a scope is letters, digits, _, : and -")).optional(),
  /** Personal data in its results: `redact` (an open-world read's default) or `keep`. */
  personalData: ToolDescriptorSchema.shape.personalData,
  /** The approver's one-line summary of a call, with its arguments by name: `"Create issue {title} in {repo}"`. */
  approvalSummary: ToolDescriptorSchema.shape.approvalSummary,
  /** The dry run: another tool of the same server, one that only reads, with args built from the call's (default: the call's args). */
  preview: z.strictObject({ tool: z.string().min(1), args: z.record(z.string(), JsonValueSchema).optional() }).optional(),
  ...hookFields,
});
export type McpOverride = z.infer<typeof McpOverrideSchema>;

/** An MCP server whose tools are discovered at start and registered as `discovered`. */
export const McpSectionSchema = z.strictObject({
  transport: z.enum(["stdio", "http"]),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).default([]),
  cwd: z.string().min(1).optional(),
  env: EnvSpecSchema.default({ allow: [], set: {} }),
  network: NetworkSchema.default("none"),
  /** Runs unconfined, as the adapters' own user with their view of the files, where the tools' sandbox is unavailable or too tight: only for code the operator trusts as much as the adapters. */
  trusted: z.boolean().default(false),
  url: z.url({ protocol: /^https?$/ }).optional(),
  headers: z.record(HeaderNameSchema, z.string()).optional(),
  secrets: z.array(SecretUseSchema).default([]),
  /** Only these MCP tool names (default: all). */
  include: z.array(z.string()).optional(),
  exclude: z.array(z.string()).default([]),
  /** Per MCP tool name: an operator's grade, flags and limits. */
  tools: z.record(z.string(), McpOverrideSchema).default({}),
  timeoutMs: z.int().min(1).max(3_600_000).default(30_000),
  maxOutputBytes: z.int().min(1).max(64 * MiB).default(4 * MiB),
  /** The version of a tool first seen; a changed tool gets the next patch version. */
  firstVersion: VersionSchema.default("1.0.0"),
  connectTimeoutMs: z.int().min(100).max(300_000).default(20_000),
});
export type McpSection = z.infer<typeof McpSectionSchema>;

export const ManifestObjectSchema = z.strictObject({
    domain: DomainSchema,
    /** Status of versions the registry has not seen (manifest tools; discovered MCP tools are always `discovered`). */
    status: z.enum(["enabled", "discovered", "disabled"]).default("enabled"),
    secrets: z.array(SecretSourceSchema).default([]),
    tools: z.array(ToolEntrySchema).default([]),
    mcp: McpSectionSchema.optional(),
});
export type Manifest = z.infer<typeof ManifestObjectSchema>;

/** A manifest: one domain's tools, each a descriptor plus an adapter section, and the secrets they use. */
export const ManifestSchema = ManifestObjectSchema.superRefine(checkManifest);
