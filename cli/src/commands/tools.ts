import { MAX_VIEW_MAX_TOOLS } from "@warden/contracts/descriptor";
import { createAgentClient, createRegistryClient } from "@warden/sdk";
import { defaultPrincipal, onePositional, type CommandInput } from "../args.js";
import type { TOOLS_LIST_OPTIONS, TOOLS_STATUS_OPTIONS, TOOLS_VIEW_OPTIONS } from "../command-list.js";
import { existingHome, withBus } from "../connect.js";
import { parseFlags, parseFormat, parseMode, parseToken } from "../domain/options.js";
import { toolListText, toolViewText } from "../domain/tool-table.js";
import { CliError, EXIT_OK, usageError } from "../errors.js";
import type { Command, CommandIo } from "../io.js";
import { emit, pretty, renderTable } from "../output.js";

/** `warden tools [...]` shows a caller's ToolView. */
export const toolsViewCommand: Command<typeof TOOLS_VIEW_OPTIONS> = async ({ values, positionals }, io) => {
  if (positionals.length > 0) throw new CliError("INVALID_REQUEST", `unexpected arguments: ${positionals.join(" ")} (did you mean tools enable|disable NAME?)`);
  const json = values.json ?? false;
  const format = parseFormat(values.format, "table");
  const explain = values.explain ?? false;
  const principal = values.principal ?? defaultPrincipal(io.env);
  const mode = parseMode(values.mode, "human");
  const scope = values.scope === undefined ? null : parseToken("--scope", values.scope);
  const flags = parseFlags(values.flags);
  const maxTools = values["max-tools"] === undefined ? undefined : Number(values["max-tools"]);
  if (maxTools !== undefined && !(Number.isInteger(maxTools) && maxTools >= 1 && maxTools <= MAX_VIEW_MAX_TOOLS)) {
    throw usageError(`--max-tools is a whole number from 1 to ${MAX_VIEW_MAX_TOOLS}, not ${JSON.stringify(values["max-tools"])}`);
  }
  // a principal's own credentials when WARDEN_HOME has them; else the operator looks on its behalf
  const asName = values.as ?? (existingHome(io)?.identity(principal) ? principal : undefined);
  const view = await withBus(io, { name: asName, creds: values.creds, fallback: "admin", defaulted: values.as === undefined }, (bus) =>
    createAgentClient({ bus, principal, mode }).toolView({ format, explain, flags, scope, ...(maxTools === undefined ? {} : { maxTools }) }),
  );
  if (!view.ok) throw new CliError(view.error.code, view.error.message);
  emit(io, json, view.value, () => (format === "table" ? toolViewText(view.value.view, explain) : pretty(view.value.formatted)));
  return EXIT_OK;
};

/**
 * `warden tools list`: every registered version with its whole descriptor (a ToolView leaves out
 * what policy decides on: flags, scopes); `--json` is what `policy check|decide --tools` read.
 */
export const toolsListCommand: Command<typeof TOOLS_LIST_OPTIONS> = async ({ values }, io) => {
  const r = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, (bus) => createRegistryClient(bus).list());
  if (!r.ok) throw new CliError(r.error.code, r.error.message);
  const records = [...r.value].sort((a, b) => a.descriptor.name.localeCompare(b.descriptor.name) || a.descriptor.version.localeCompare(b.descriptor.version));
  emit(io, values.json ?? false, { tools: records }, () => toolListText(records));
  return EXIT_OK;
};

/** `warden tools enable NAME [--version V]`. */
export const toolsEnableCommand: Command<typeof TOOLS_STATUS_OPTIONS> = (input, io) => setStatus("enabled", input, io);

/** `warden tools disable NAME [--version V]`. */
export const toolsDisableCommand: Command<typeof TOOLS_STATUS_OPTIONS> = (input, io) => setStatus("disabled", input, io);

async function setStatus(status: "enabled" | "disabled", { values, positionals }: CommandInput<typeof TOOLS_STATUS_OPTIONS>, io: CommandIo): Promise<number> {
  const name = onePositional(positionals, "NAME (e.g. kb.reindex)");
  const req = { name, status, ...(values.version === undefined ? {} : { version: values.version }) };
  const r = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, (bus) => createRegistryClient(bus).setStatus(req));
  if (!r.ok) throw new CliError(r.error.code, r.error.message);
  const records = r.value;
  emit(io, values.json ?? false, { ok: true, tools: records.map((t) => ({ name: t.descriptor.name, version: t.descriptor.version, status: t.status })) }, () =>
    renderTable(records, [
      { title: "NAME", value: (t) => t.descriptor.name },
      { title: "VERSION", value: (t) => t.descriptor.version },
      { title: "STATUS", value: (t) => t.status },
    ]),
  );
  return EXIT_OK;
}
