import type { z } from "zod";
import { lintDescriptor, parseToolName, ToolDescriptorSchema, type JsonObject } from "@warden/contracts";
import { argvArgNames } from "../domain/argv.js";
import { checkMethodForGrade, checkUrl, httpArgNames } from "../domain/http-request.js";
import { PATH_FORMAT, pathArgsOf } from "../domain/path-args.js";
import { parseTemplate, templateArgNames } from "../domain/template.js";
import type { Manifest, SecretUse, ToolEntry } from "./manifest-schema.js";
import { fullToolName, toolDescriptor } from "./tool-descriptor.js";

type Path = (string | number)[];
type Report = (path: Path, message: string) => void;

/** Cross-field rules of a manifest, each reported at the path it concerns (so at a line of the file). */
export function checkManifest(m: Manifest, ctx: z.RefinementCtx): void {
  const report: Report = (path, message) => ctx.addIssue({ code: "custom", path, message });
  if (m.tools.length === 0 && m.mcp === undefined) report([], "a manifest needs tools, an mcp server, or both");
  const declared = new Set(m.secrets.map((s) => s.name));
  const names = new Map<string, number>();
  m.tools.forEach((t, i) => {
    const at: Path = ["tools", i];
    checkTool(m.domain, t, at, report);
    const full = fullToolName(m.domain, t.name);
    const prior = names.get(full);
    if (prior !== undefined) report([...at, "name"], `${full} is already defined by tools[${prior}]`);
    names.set(full, i);
    checkSecretUses(t.secrets, declared, t.cli ? "env" : "header", [...at, "secrets"], report);
    if (t.cli) {
      t.secrets.forEach((s, j) => {
        if (s.env !== undefined && s.env in t.cli!.env.set) report([...at, "secrets", j, "env"], `${s.env} is also set in cli.env.set`);
      });
    }
  });
  const seen = new Set<string>();
  m.secrets.forEach((s, i) => {
    if (seen.has(s.name)) report(["secrets", i, "name"], `secret ${s.name} is declared twice`);
    seen.add(s.name);
  });
  if (m.mcp) {
    const mcp = m.mcp;
    if (mcp.transport === "stdio" && mcp.command === undefined) report(["mcp", "command"], "a stdio server needs a command");
    if (mcp.transport === "http" && mcp.url === undefined) report(["mcp", "url"], "an http server needs a url");
    if (mcp.transport === "http" && mcp.command !== undefined) report(["mcp", "command"], "an http server has a url, not a command");
    checkSecretUses(mcp.secrets, declared, mcp.transport === "stdio" ? "env" : "header", ["mcp", "secrets"], report);
    const perPrincipal = new Set(m.secrets.filter((s) => s.bind === "principal").map((s) => s.name));
    mcp.secrets.forEach((s, j) => {
      // one connection serves every caller, so it cannot carry one caller's credential
      if (perPrincipal.has(s.secret)) report(["mcp", "secrets", j, "secret"], `secret ${s.secret} is bound to the principal: an MCP server's connection serves every caller, so it takes only the executor's own secrets`);
    });
  }
}

function checkTool(domain: string, t: ToolEntry, at: Path, report: Report): void {
  if ((t.cli === undefined) === (t.http === undefined)) {
    report(at, "a tool needs exactly one adapter section: cli or http");
    return;
  }
  const full = fullToolName(domain, t.name);
  const parsed = parseToolName(full);
  if (parsed === undefined) report([...at, "name"], `${full} is not a tool name (<domain>.<capability>, letters, digits, - and single _)`);
  else if (parsed.domain !== domain) report([...at, "name"], `${full} is not in domain ${domain}`);
  // only linted here: which secrets are bound to the principal changes no lint rule
  const descriptor = ToolDescriptorSchema.safeParse(toolDescriptor(domain, t, []));
  if (descriptor.success) {
    for (const issue of lintDescriptor(descriptor.data)) report(at, `${issue.rule}: ${issue.message}`);
  }
  const props = schemaProperties(t.inputSchema);
  const unknownArgs = (names: readonly string[], path: Path) => {
    for (const n of new Set(names)) if (!props.has(n)) report(path, `{${n}} names no property of the inputSchema`);
  };
  if (t.cli) {
    const argv = argvArgNames(t.cli.argv);
    if (!argv.ok) report([...at, "cli", "argv"], argv.error.message);
    else unknownArgs(argv.value, [...at, "cli", "argv"]);
    if (t.cli.cwd !== undefined) {
      const cwd = parseTemplate(t.cli.cwd);
      if (!cwd.ok) report([...at, "cli", "cwd"], cwd.error.message);
      else unknownArgs(templateArgNames(cwd.value), [...at, "cli", "cwd"]);
    }
  }
  if (t.http) {
    const http = t.http;
    const paths = pathArgsOf(t.inputSchema);
    for (const n of [...paths.single, ...paths.lists]) {
      report([...at, "inputSchema", "properties", n], `format: ${PATH_FORMAT} confines a path to a CLI tool's roots; an HTTP tool has none`);
    }
    const args = httpArgNames(http);
    if (!args.ok) report([...at, "http"], args.error.message);
    else unknownArgs(args.value, [...at, "http"]);
    if (!http.method.includes("{")) {
      const method = checkMethodForGrade(http.method, t.grade);
      if (!method.ok) report([...at, "http", "method"], method.error.message);
    } else if (t.grade === "read") {
      const name = http.method.replace(/[{}\s]/g, "");
      const allowed = enumOf(t.inputSchema, name);
      if (allowed === undefined || allowed.some((m) => !checkMethodForGrade(String(m), "read").ok)) {
        report([...at, "http", "method"], `a read tool's method from {${name}} needs an enum of safe methods (GET, HEAD, OPTIONS) in the inputSchema`);
      }
    }
    const authority = /^[a-z]+:\/\/[^/?#]*/i.exec(http.url)?.[0];
    if (authority === undefined) report([...at, "http", "url"], "the url must start with http:// or https://");
    else if (!authority.includes("{")) {
      try {
        const checked = checkUrl(new URL(authority), http.allowHosts);
        if (!checked.ok) report([...at, "http", "url"], checked.error.message);
      } catch {
        report([...at, "http", "url"], `${authority} is not a URL`);
      }
    }
  }
}

function checkSecretUses(uses: readonly SecretUse[], declared: ReadonlySet<string>, kind: "env" | "header", at: Path, report: Report): void {
  uses.forEach((s, j) => {
    if (!declared.has(s.secret)) report([...at, j, "secret"], `secret ${s.secret} is not declared in the manifest's secrets`);
    if (kind === "env" && s.header !== undefined) report([...at, j, "header"], "this adapter injects secrets as environment variables (env), not headers");
    if (kind === "header" && s.env !== undefined) report([...at, j, "env"], "this adapter injects secrets as HTTP headers (header), not environment variables");
  });
}

function schemaProperties(schema: JsonObject): Set<string> {
  const props = schema["properties"];
  return new Set(props !== null && typeof props === "object" && !Array.isArray(props) ? Object.keys(props) : []);
}

function enumOf(schema: JsonObject, name: string): unknown[] | undefined {
  const props = schema["properties"] as Record<string, { enum?: unknown } | undefined> | undefined;
  const e = props?.[name]?.enum;
  return Array.isArray(e) ? e : undefined;
}
