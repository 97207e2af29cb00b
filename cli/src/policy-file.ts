import { resolve } from "node:path";
import type { Bus } from "@warden/bus";
import type { ToolRecord } from "@warden/contracts/descriptor";
import type { PolicyDocument } from "@warden/contracts/policy";
import { checkPolicyText, type PolicyCheck, type PolicyDiagnostic } from "@warden/policy-engine";
import { CliError } from "./errors.js";
import type { CommandIo } from "./io.js";
import { readNamedText } from "./named-file.js";

/** A policy document's text, read as the operator named it (messages name `path` as given). */
export async function readPolicyText(io: Pick<CommandIo, "cwd">, path: string): Promise<string> {
  return readNamedText(resolve(io.cwd, path));
}

/** `file:line:column: severity: message [code]`, as compilers print it. */
export function diagnosticLine(path: string, d: PolicyDiagnostic): string {
  return `${path}:${d.line}:${d.column}: ${d.severity}: ${d.message} [${d.code}]`;
}

/** A valid policy document from a file, or a refusal naming its first error's line and column. */
export async function readPolicyDocument(io: Pick<CommandIo, "cwd">, path: string): Promise<{ document: PolicyDocument; check: PolicyCheck }> {
  const check = checkPolicyText(await readPolicyText(io, path));
  if (check.document === undefined) {
    const lines = check.errors.map((d) => diagnosticLine(path, d));
    throw new CliError("INVALID_REQUEST", `${path} is not a valid policy document (\`warden policy check ${path}\` lists every problem):\n${lines.join("\n")}`);
  }
  return { document: check.document, check };
}

/** Every registered tool version, from the registry over `bus` (as the admin, or --as / --creds). */
export async function registryTools(bus: Bus): Promise<ToolRecord[]> {
  const { createRegistryClient } = await import("@warden/sdk");
  const r = await createRegistryClient(bus).list();
  if (!r.ok) throw new CliError(r.error.code, `cannot list the registered tools: ${r.error.message}`);
  return r.value;
}
