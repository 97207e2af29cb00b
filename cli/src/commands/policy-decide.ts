import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseJsonGuarded, type ToolRecord } from "@warden/contracts";
import { decideRequest, HistoryRecordsSchema, parseDecideRequest, type DecideRequest, type HistoryRecord } from "@warden/policy-engine";
import { parse as parseYaml } from "yaml";
import { onePositional } from "../args.js";
import type { POLICY_DECIDE_OPTIONS } from "../command-list.js";
import { decideText, type ArgsVerdict } from "../domain/policy-format.js";
import { CliError, EXIT_FAILED, EXIT_OK, usageError } from "../errors.js";
import type { Command, CommandIo } from "../io.js";
import { emit } from "../output.js";
import { readPolicyDocument, registryTools } from "../policy-file.js";
import { readToolsFile } from "../tools-file.js";

/**
 * `warden policy decide FILE --request JSON [--tools FILE]`: what the document decides for one
 * request, as the policy stage would (rules, reason, gate) and the ToolView the caller would get;
 * no bus with --tools, else the registry's descriptors. Args, when given, are checked as the
 * registry would (a refusal there exits 1). Gates that depend on earlier calls are named, not
 * decided.
 */
export const policyDecideCommand: Command<typeof POLICY_DECIDE_OPTIONS> = async ({ values, positionals }, io) => {
  const path = onePositional(positionals, "FILE (a JSON or YAML policy document)");
  const { document } = await readPolicyDocument(io, path);
  const request = await readRequest(io, values.request);
  let tools: ToolRecord[];
  if (values.tools !== undefined) {
    tools = await readToolsFile(io, values.tools);
  } else {
    const { withBus } = await import("../connect.js");
    tools = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, registryTools);
  }
  const history = values.history === undefined ? undefined : await readHistory(io, values.history);
  const decided = decideRequest(document, tools, request, history);
  if (!decided.ok) throw new CliError(decided.error.code, `${decided.error.message} (the registry refuses such a call before policy)`);
  const r = decided.value;
  const chosen = tools.find((t) => t.descriptor.name === r.tool.name && t.descriptor.version === r.tool.version);
  const args = request.args === undefined || chosen === undefined ? undefined : await checkArgs(chosen, request.args);
  emit(io, values.json ?? false, { ...r, file: path, tools: values.tools ?? "registry", ...(args === undefined ? {} : { args }) }, () => decideText(path, r, args));
  return args !== undefined && !args.valid ? EXIT_FAILED : EXIT_OK;
};

/** `--request` as JSON text, or `@FILE`. */
async function readRequest(io: Pick<CommandIo, "cwd">, text: string): Promise<DecideRequest> {
  let bytes: Uint8Array;
  if (text.startsWith("@")) {
    const file = resolve(io.cwd, text.slice(1));
    try {
      bytes = await readFile(file);
    } catch (err) {
      throw new CliError("NOT_FOUND", `cannot read ${file}: ${(err as Error).message}`);
    }
  } else {
    bytes = new TextEncoder().encode(text);
  }
  const json = parseJsonGuarded(bytes);
  if (!json.ok) throw usageError(`--request is not JSON (${json.code}): ${json.reason}`);
  const request = parseDecideRequest(json.value);
  if (!request.ok) throw usageError(`--request: ${request.error.message}`);
  return request.value;
}

/** `--history FILE`: the earlier calls, JSON or YAML, each checked. */
async function readHistory(io: Pick<CommandIo, "cwd">, path: string): Promise<HistoryRecord[]> {
  const file = resolve(io.cwd, path);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new CliError("NOT_FOUND", `cannot read ${file}: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    throw usageError(`--history ${path} is neither JSON nor YAML: ${(err as Error).message.split("\n")[0] ?? ""}`);
  }
  const r = HistoryRecordsSchema.safeParse(value);
  if (!r.success) throw usageError(`--history ${path}: ${r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
  return r.data;
}

/** The args against the tool's inputSchema, as the registry checks them before policy sees the call. */
async function checkArgs(record: ToolRecord, args: unknown): Promise<ArgsVerdict> {
  // ajv loads only for a request that carries args
  const { ArgsValidators } = await import("@warden/registry");
  const check = new ArgsValidators().validate(record, args);
  if (check.kind === "valid") return { valid: true, errors: [] };
  if (check.kind === "broken") return { valid: false, errors: [{ path: "/", message: check.error.message }] };
  return { valid: false, errors: check.errors };
}
