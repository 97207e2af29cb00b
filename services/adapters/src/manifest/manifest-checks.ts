import type { z } from "zod";
import { parseToolName } from "@warden/contracts/subjects";
import { lintDescriptor, ToolDescriptorSchema } from "@warden/contracts/descriptor";
import { type JsonObject } from "@warden/contracts/json";
import { argvArgNames } from "../domain/argv.js";
import { checkMethodForGrade, checkUrl, httpArgNames, PREVIEW_METHODS } from "../domain/http-request.js";
import { PATH_FORMAT, pathArgsOf } from "../domain/path-args.js";
import { parseTemplate, templateArgNames } from "../domain/template.js";
import type { HookCommand, Manifest, SecretUse, ToolEntry, ToolHooks, ToolPreview } from "./manifest-schema.js";
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
    for (const [name, o] of Object.entries(mcp.tools)) {
      checkHooks(o, ["mcp", "tools", name], "an MCP tool", report);
      if (o.preview?.tool === name) report(["mcp", "tools", name, "preview", "tool"], `${name} cannot be its own dry run: name another tool of the server, one that only reads`);
      for (const s of templateStrings(o.preview?.args)) {
        const parsed = parseTemplate(s);
        if (!parsed.ok) report(["mcp", "tools", name, "preview", "args"], parsed.error.message);
      }
    }
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
    checkFixedAuthority(http.url, http.allowHosts, [...at, "http", "url"], report);
  }
  if (t.preview !== undefined) checkPreview(t, t.preview, [...at, "preview"], report, unknownArgs);
  checkHooks(t, at, t.cli ? undefined : "an HTTP tool", report);
}

const CLI_PREVIEW_KEYS = ["command", "argv"] as const;
const HTTP_PREVIEW_KEYS = ["method", "url", "query", "headers"] as const;

/** A CLI tool's dry run is a command, an HTTP tool's a GET or HEAD request to the tool's hosts. */
function checkPreview(t: ToolEntry, p: ToolPreview, at: Path, report: Report, unknownArgs: (names: readonly string[], path: Path) => void): void {
  if (t.cli) {
    for (const k of HTTP_PREVIEW_KEYS) if (p[k] !== undefined) report([...at, k], `a CLI tool's dry run is a command: give argv (and command if it is another), not ${k}`);
    if (p.argv === undefined) {
      report(at, "a CLI tool's dry run needs argv, e.g. the command's own --dry-run flag");
      return;
    }
    const argv = argvArgNames(p.argv);
    if (!argv.ok) report([...at, "argv"], argv.error.message);
    else unknownArgs(argv.value, [...at, "argv"]);
    return;
  }
  const http = t.http!;
  for (const k of CLI_PREVIEW_KEYS) if (p[k] !== undefined) report([...at, k], `an HTTP tool's dry run is a GET or HEAD request: give url (and query, headers), not ${k}`);
  const method = (p.method ?? "GET").toUpperCase();
  if (!(PREVIEW_METHODS as readonly string[]).includes(method)) report([...at, "method"], `a dry run only reads: its method is GET or HEAD, not ${method}`);
  if (p.url === undefined) {
    report(at, "an HTTP tool's dry run needs a url");
    return;
  }
  const args = httpArgNames({ method: "GET", url: p.url, ...(p.query === undefined ? {} : { query: p.query }), ...(p.headers === undefined ? {} : { headers: p.headers }), allowHosts: http.allowHosts });
  if (!args.ok) report(at, args.error.message);
  else unknownArgs(args.value, at);
  checkFixedAuthority(p.url, http.allowHosts, [...at, "url"], report);
}

/** Hooks run with no network in roots of their own; only a CLI tool's hooks may default to the tool's roots. */
function checkHooks(hooks: ToolHooks, at: Path, rootless: string | undefined, report: Report): void {
  for (const kind of ["preCall", "verify", "postCall"] as const) {
    const hook: HookCommand | undefined = hooks[kind];
    if (hook === undefined) continue;
    if (hook.roots === undefined && rootless !== undefined) report([...at, kind], `${kind} of ${rootless} needs roots: the folders its command runs in (relative to the manifest)`);
    hook.argv.forEach((a, j) => {
      const placeholder = PLACEHOLDER.exec(a)?.[0];
      if (placeholder !== undefined) report([...at, kind, "argv", j], `a hook's argv is fixed: it reads the call's args as JSON on stdin, not from ${placeholder}`);
    });
  }
}

const PLACEHOLDER = /\{[A-Za-z_][A-Za-z0-9_-]*\}/;

/** A URL whose host is written out must be on the allow-list already at load. */
function checkFixedAuthority(url: string, allowHosts: readonly string[], at: Path, report: Report): void {
  const authority = /^[a-z]+:\/\/[^/?#]*/i.exec(url)?.[0];
  if (authority === undefined) report(at, "the url must start with http:// or https://");
  else if (!authority.includes("{")) {
    try {
      const checked = checkUrl(new URL(authority), allowHosts);
      if (!checked.ok) report(at, checked.error.message);
    } catch {
      report(at, `${authority} is not a URL`);
    }
  }
}

function templateStrings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(templateStrings);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(templateStrings);
  return [];
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
