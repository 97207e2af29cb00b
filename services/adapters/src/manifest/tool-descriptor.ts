import type { ToolDescriptor } from "@warden/contracts/descriptor";
import type { SecretSource, ToolEntry } from "./manifest-schema.js";

/** `list` in domain `files` is `files.list`; a full name is kept as written. */
export function fullToolName(domain: string, name: string): string {
  return name.includes(".") ? name : `${domain}.${name}`;
}

/**
 * The descriptor a manifest tool registers: its descriptor fields, plus the network it gets (and
 * whether it runs unconfined, `trusted`), the
 * secret names it needs, `preview` / `verify` flags when it declares them (as `defineTool` sets
 * them) and, when one of its secrets is bound to the principal (`sources`: the manifest's secrets),
 * that it acts as the caller.
 */
export function toolDescriptor(domain: string, entry: ToolEntry, sources: readonly SecretSource[]): ToolDescriptor {
  const { cli, http: _http, secrets, name, preview, verify, preCall: _preCall, postCall: _postCall, ...fields } = entry;
  const d: ToolDescriptor = { ...fields, name: fullToolName(domain, name) };
  if (preview !== undefined) d.preview = true;
  if (verify !== undefined) d.verify = true;
  if (cli !== undefined) d.network = cli.network;
  if (cli?.trusted === true) d.unconfined = true;
  const names = [...new Set(secrets.map((s) => s.secret))].sort();
  if (names.length > 0) d.secrets = names;
  // only when it does: a tool acting with its executor's secrets keeps the descriptor (and hash) it had
  if (sources.some((s) => s.bind === "principal" && names.includes(s.name))) d.actsAs = "caller";
  return d;
}
