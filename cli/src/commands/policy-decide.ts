import { resolve } from "node:path";
import { type ToolRecord } from "@warden/contracts/descriptor";
import { parseJsonGuarded } from "@warden/contracts/json";
import { decideRequest, HistoryRecordsSchema, parseDecideRequest, type DecideRequest, type HistoryRecord } from "@warden/policy-engine";
import { parse as parseYaml } from "yaml";
import { onePositional } from "../args.js";
import type { POLICY_DECIDE_OPTIONS } from "../command-list.js";
import { decideText, type ArgsVerdict } from "../domain/policy-format.js";
import { historyFromCalls, historySince } from "../domain/stream-history.js";
import { parseTimeBound } from "../domain/time-range.js";
import { CliError, EXIT_FAILED, EXIT_OK, usageError } from "../errors.js";
import { readNamedFile, readNamedText } from "../named-file.js";
import type { Command, CommandIo } from "../io.js";
import { emit } from "../output.js";
import { readPolicyDocument, registryTools } from "../policy-file.js";
import { readToolsFile } from "../tools-file.js";

/**
 * `warden policy decide FILE --request JSON [--tools FILE]`: what the document decides for one
 * request, as the policy stage would (rules, reason, gate) and the ToolView the caller would get;
 * no bus with --tools, else the registry's descriptors. Args, when given, are checked as the
 * registry would (a refusal there exits 1). Gates that depend on earlier calls are named, not
 * decided; history conditions are decided from `--history FILE` or, with `--history-from-stream`,
 * from the calls recorded on the stream since `--since` (default: the longest rule window).
 */
export const policyDecideCommand: Command<typeof POLICY_DECIDE_OPTIONS> = async ({ values, positionals }, io) => {
  const path = onePositional(positionals, "FILE (a JSON or YAML policy document)");
  const { document } = await readPolicyDocument(io, path);
  const request = await readRequest(io, values.request);
  const fromStream = values["history-from-stream"] ?? false;
  if (fromStream && values.history !== undefined) throw usageError("--history FILE and --history-from-stream are two sources of the same history: give one");
  if (!fromStream && values.since !== undefined) throw usageError("--since is where --history-from-stream starts reading: give it with --history-from-stream");
  const at = request.at === undefined ? new Date() : new Date(request.at);
  const since = fromStream ? (parseTimeBound("--since", values.since, new Date()) ?? historySince(document, at)) : undefined;
  let tools: ToolRecord[];
  let history: HistoryRecord[] | undefined;
  let streamRead: { since: string | null; calls: number } | undefined;
  if (values.tools !== undefined && !fromStream) {
    tools = await readToolsFile(io, values.tools);
  } else {
    const { withBus } = await import("../connect.js");
    const read = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, async (bus) => {
      const t = values.tools !== undefined ? await readToolsFile(io, values.tools) : await registryTools(bus);
      if (!fromStream) return { tools: t, history: undefined };
      // no history rule and no --since: nothing a condition could read
      if (since === undefined && values.since === undefined) return { tools: t, history: [] };
      const { readAuditCallEvents } = await import("../audit-reader.js");
      const r = await readAuditCallEvents(bus, since === undefined ? {} : { since });
      return { tools: t, history: historyFromCalls(r.calls) };
    });
    tools = read.tools;
    history = read.history;
    if (history !== undefined) streamRead = { since: since?.toISOString() ?? null, calls: history.length };
  }
  if (values.history !== undefined) history = await readHistory(io, values.history);
  const decided = decideRequest(document, tools, fromStream ? { ...request, at: at.toISOString() } : request, history);
  if (!decided.ok) throw new CliError(decided.error.code, `${decided.error.message} (the registry refuses such a call before policy)`);
  const r = decided.value;
  const chosen = tools.find((t) => t.descriptor.name === r.tool.name && t.descriptor.version === r.tool.version);
  const args = request.args === undefined || chosen === undefined ? undefined : await checkArgs(chosen, request.args);
  const note = streamRead === undefined ? "" : `\n  history read from the stream${streamRead.since === null ? "" : ` since ${streamRead.since}`}: ${streamRead.calls} admitted calls`;
  emit(io, values.json ?? false, { ...r, file: path, tools: values.tools ?? "registry", ...(args === undefined ? {} : { args }), ...(streamRead === undefined ? {} : { historyFromStream: streamRead }) }, () => decideText(path, r, args) + note);
  return args !== undefined && !args.valid ? EXIT_FAILED : EXIT_OK;
};

/** `--request` as JSON text, or `@FILE`. */
async function readRequest(io: Pick<CommandIo, "cwd">, text: string): Promise<DecideRequest> {
  const bytes = text.startsWith("@") ? await readNamedFile(resolve(io.cwd, text.slice(1))) : new TextEncoder().encode(text);
  const json = parseJsonGuarded(bytes);
  if (!json.ok) throw usageError(`--request is not JSON (${json.code}): ${json.reason}`);
  const request = parseDecideRequest(json.value);
  if (!request.ok) throw usageError(`--request: ${request.error.message}`);
  return request.value;
}

/** `--history FILE`: the earlier calls, JSON or YAML, each checked. */
async function readHistory(io: Pick<CommandIo, "cwd">, path: string): Promise<HistoryRecord[]> {
  const text = await readNamedText(resolve(io.cwd, path));
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
