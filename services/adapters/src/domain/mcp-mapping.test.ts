import { describe, expect, it } from "vitest";
import type { ToolRecord } from "@warden/contracts/descriptor";
import { mcpDescriptor, type McpToolInfo } from "./mcp-descriptor.js";
import { gradeFromHints } from "./mcp-grade.js";
import { capabilityNames, sanitiseToolName } from "./mcp-names.js";
import { chooseVersion } from "./mcp-versions.js";
import { McpSectionSchema } from "../manifest/manifest-schema.js";
import { describeMcpTool } from "../mcp-adapter/mcp-catalog.js";

describe("gradeFromHints", () => {
  it("grades a tool without hints as send: nothing is known about its effects", () => {
    expect(gradeFromHints(undefined)).toMatchObject({ grade: "send" });
    expect(gradeFromHints({})).toMatchObject({ grade: "send" });
  });

  it("grades readOnlyHint as read, and treats missing destructive / open-world hints as true (the MCP defaults)", () => {
    expect(gradeFromHints({ readOnlyHint: true, openWorldHint: false })).toEqual({ grade: "read", destructive: false, idempotent: true, openWorld: false });
    expect(gradeFromHints({ readOnlyHint: false })).toMatchObject({ grade: "send", destructive: true, openWorld: true });
    expect(gradeFromHints({ destructiveHint: false })).toMatchObject({ grade: "send", openWorld: true });
  });

  it("grades a tool that is neither destructive nor open-world as write, and either one as send", () => {
    expect(gradeFromHints({ readOnlyHint: false, destructiveHint: false, openWorldHint: false, idempotentHint: true })).toEqual({
      grade: "write",
      destructive: false,
      idempotent: true,
      openWorld: false,
    });
    expect(gradeFromHints({ readOnlyHint: false, destructiveHint: true, openWorldHint: false })).toMatchObject({ grade: "send" });
    expect(gradeFromHints({ readOnlyHint: false, destructiveHint: false, openWorldHint: true })).toMatchObject({ grade: "send" });
  });
});

describe("MCP tool names", () => {
  it("sanitises names into a capability segment that survives the wire-name mapping", () => {
    expect(sanitiseToolName("read_file")).toBe("read_file");
    expect(sanitiseToolName("get-sum")).toBe("get-sum");
    expect(sanitiseToolName("a.b/c")).toBe("a-b-c");
    expect(sanitiseToolName("__x__y__")).toBe("x_y");
    expect(sanitiseToolName("!!!")).toBe("tool");
  });

  it("gives colliding and over-long names a stable hash suffix", () => {
    const names = capabilityNames("fs", ["a.b", "a-b", "ok", "x".repeat(80)]);
    expect(names.get("ok")).toBe("ok");
    expect(names.get("a.b")).not.toBe(names.get("a-b"));
    expect(names.get("a.b")).toMatch(/^a-b-[0-9a-f]{6}$/);
    expect(`fs.${names.get("x".repeat(80))}`.length).toBeLessThanOrEqual(64);
    expect(capabilityNames("fs", ["a-b", "a.b"]).get("a.b")).toBe(names.get("a.b"));
  });
});

describe("chooseVersion", () => {
  const info: McpToolInfo = { name: "echo", description: "Echoes back the input string it is given", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } };
  const settings = { timeoutMs: 1000, maxOutputBytes: 1000, secrets: [] };
  const draft = mcpDescriptor("ev", "echo", "1.0.0", info, settings);
  const record = (version: string, description: string, status: ToolRecord["status"]): ToolRecord => ({
    descriptor: { ...draft, version, description },
    descriptorHash: "sha256:x",
    status,
    registeredAt: "2026-01-01T00:00:00.000Z",
    statusChangedAt: "2026-01-01T00:00:00.000Z",
  });

  it("starts at the first version when the registry has none", () => {
    expect(chooseVersion(draft, [], "1.0.0")).toEqual({ version: "1.0.0", isNew: true, superseded: [] });
  });

  it("keeps the version that has the same content", () => {
    expect(chooseVersion(draft, [record("1.0.0", "old description here", "disabled"), record("1.0.1", draft.description, "enabled")], "1.0.0")).toEqual({
      version: "1.0.1",
      isNew: false,
      superseded: [],
    });
  });

  it("bumps the patch above the newest version for changed content and names the enabled versions it supersedes", () => {
    expect(chooseVersion(draft, [record("1.0.0", "an older description", "enabled"), record("1.0.3", "another description", "discovered")], "1.0.0")).toEqual({
      version: "1.0.4",
      isNew: true,
      superseded: ["1.0.0"],
    });
  });
});

describe("an operator's L3 settings for a discovered tool", () => {
  it("gives an open-world read the scopes a caller needs and keeps its personal data only when told", () => {
    const info: McpToolInfo = { name: "lookup", description: "Looks a company up in the public registry", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } };
    const plain = describeMcpTool("reg", McpSectionSchema.parse({ transport: "stdio", command: "node" }), info, "lookup", "1.0.0");
    expect(plain).toMatchObject({ grade: "read", openWorld: true, requiredScopes: [] });
    expect(plain).not.toHaveProperty("personalData");
    const set = McpSectionSchema.parse({ transport: "stdio", command: "node", tools: { lookup: { requiredScopes: ["registry:read"], personalData: "keep" } } });
    expect(describeMcpTool("reg", set, info, "lookup", "1.0.0")).toMatchObject({ requiredScopes: ["registry:read"], personalData: "keep" });
  });
});
