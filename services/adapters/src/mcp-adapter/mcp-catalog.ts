import { lintDescriptor, ToolDescriptorSchema, type ToolDescriptor } from "@warden/contracts/descriptor";
import { mcpDescriptor, type McpToolInfo } from "../domain/mcp-descriptor.js";
import { gradeFromHints } from "../domain/mcp-grade.js";
import { capabilityNames } from "../domain/mcp-names.js";
import type { McpSection } from "../manifest/manifest-schema.js";

/** A server tool turned into a descriptor draft (version = the manifest's firstVersion until one is chosen). */
export interface McpDraft {
  readonly mcpName: string;
  readonly capability: string;
  readonly info: McpToolInfo;
  readonly draft: ToolDescriptor;
}

export interface McpCatalog {
  readonly drafts: McpDraft[];
  /** Server tools left out, with why (excluded, a name taken by a manifest tool, an invalid descriptor). */
  readonly skipped: { readonly mcpName: string; readonly reason: string }[];
}

/** How one server tool is described, given its capability name; used at discovery and to re-check before each call. */
export function describeMcpTool(domain: string, section: McpSection, info: McpToolInfo, capability: string, version: string): ToolDescriptor {
  const o = section.tools[info.name] ?? {};
  const d = mcpDescriptor(domain, capability, version, info, {
    grade: o.grade,
    destructive: o.destructive,
    idempotent: o.idempotent,
    openWorld: o.openWorld,
    timeoutMs: o.timeoutMs ?? section.timeoutMs,
    maxOutputBytes: o.maxOutputBytes ?? section.maxOutputBytes,
    network: section.transport === "stdio" ? section.network : undefined,
    secrets: [...new Set(section.secrets.map((s) => s.secret))].sort(),
  });
  // as defineTool sets them: the registry, the card and `warden tools` see a dry run and a verify the same way
  if (o.preview !== undefined) d.preview = true;
  if (o.verify !== undefined) d.verify = true;
  if (o.requiredScopes !== undefined) d.requiredScopes = [...o.requiredScopes];
  if (o.personalData !== undefined) d.personalData = o.personalData;
  if (o.approvalSummary !== undefined) d.approvalSummary = o.approvalSummary;
  if (section.transport === "stdio" && section.trusted) d.unconfined = true;
  return d;
}

/**
 * Why an MCP tool cannot be the dry run it is named for, or undefined when it can: the server must
 * offer it and it must only read (readOnlyHint, or an operator's grade read; an operator's other
 * grade wins over the hint). Checked at discovery and again right before each dry run.
 */
export function dryRunProblem(section: McpSection, target: string, infos: readonly McpToolInfo[]): string | undefined {
  const info = infos.find((t) => t.name === target);
  if (info === undefined) return `its dry run ${target} is not a tool the server offers`;
  const grade = section.tools[target]?.grade ?? gradeFromHints(info.annotations).grade;
  if (grade !== "read") return `its dry run ${target} is graded ${grade}; a dry run must only read (readOnlyHint: true, or grade: read in the manifest's tools.${target})`;
  return undefined;
}

/** Normalises a server's tool list into descriptor drafts for a domain. */
export function catalogMcpTools(domain: string, section: McpSection, infos: readonly McpToolInfo[], reserved: ReadonlySet<string>): McpCatalog {
  const skipped: McpCatalog["skipped"] = [];
  const wanted = infos.filter((t) => {
    const out = (section.include !== undefined && !section.include.includes(t.name)) || section.exclude.includes(t.name);
    if (out) skipped.push({ mcpName: t.name, reason: "excluded by the manifest" });
    return !out;
  });
  const names = capabilityNames(domain, wanted.map((t) => t.name));
  const drafts: McpDraft[] = [];
  for (const info of wanted) {
    const capability = names.get(info.name)!;
    const draft = describeMcpTool(domain, section, info, capability, section.firstVersion);
    if (reserved.has(draft.name)) {
      skipped.push({ mcpName: info.name, reason: `${draft.name} is defined by the manifest's tools` });
      continue;
    }
    const dryRun = section.tools[info.name]?.preview;
    const problem = dryRun === undefined ? undefined : dryRunProblem(section, dryRun.tool, infos);
    if (problem !== undefined) {
      skipped.push({ mcpName: info.name, reason: problem });
      continue;
    }
    const parsed = ToolDescriptorSchema.safeParse(draft);
    if (!parsed.success) {
      skipped.push({ mcpName: info.name, reason: `its descriptor is invalid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}` });
      continue;
    }
    const lint = lintDescriptor(parsed.data);
    if (lint.length > 0) {
      skipped.push({ mcpName: info.name, reason: lint.map((l) => `${l.rule}: ${l.message}`).join("; ") });
      continue;
    }
    drafts.push({ mcpName: info.name, capability, info, draft: parsed.data });
  }
  return { drafts, skipped };
}
