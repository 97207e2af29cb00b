import { createAgentClient, createRegistryClient } from "@warden/sdk";
import { CALLER_OPTIONS, defaultPrincipal, JSON_OPTION, onePositional, parseCommandArgs, WHO_OPTIONS } from "../args.js";
import { existingHome, withBus } from "../connect.js";
import { parseFlags, parseFormat, parseMode, parseToken } from "../domain/options.js";
import { toolViewText } from "../domain/tool-table.js";
import { CliError, EXIT_OK } from "../errors.js";
import type { Command, CommandIo } from "../io.js";
import { emit, pretty, renderTable } from "../output.js";

const VIEW_OPTIONS = { ...JSON_OPTION, ...CALLER_OPTIONS, ...WHO_OPTIONS, format: { type: "string" }, explain: { type: "boolean" } } as const;
const STATUS_OPTIONS = { ...JSON_OPTION, ...WHO_OPTIONS, version: { type: "string" } } as const;

/** `warden tools [...]` shows a caller's ToolView; `tools enable|disable NAME` changes a tool's status. */
export const toolsCommand: Command = async (argv, io) => {
  const [sub, ...rest] = argv;
  if (sub === "enable" || sub === "disable") return setStatus(sub === "enable" ? "enabled" : "disabled", rest, io);
  return showView(argv, io);
};

async function showView(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, VIEW_OPTIONS);
  if (positionals.length > 0) throw new CliError("INVALID_REQUEST", `unexpected arguments: ${positionals.join(" ")} (did you mean tools enable|disable NAME?)`);
  const json = values.json ?? false;
  const format = parseFormat(values.format, "table");
  const explain = values.explain ?? false;
  const principal = values.principal ?? defaultPrincipal(io.env);
  const mode = parseMode(values.mode, "human");
  const scope = values.scope === undefined ? null : parseToken("--scope", values.scope);
  const flags = parseFlags(values.flags);
  // a principal's own credentials when WARDEN_HOME has them; else the operator looks on its behalf
  const asName = values.as ?? (existingHome(io)?.identity(principal) ? principal : undefined);
  const view = await withBus(io, { name: asName, creds: values.creds, fallback: "admin" }, (bus) =>
    createAgentClient({ bus, principal, mode }).toolView({ format, explain, flags, scope }),
  );
  if (!view.ok) throw new CliError(view.error.code, view.error.message);
  emit(io, json, view.value, () => (format === "table" ? toolViewText(view.value.view, explain) : pretty(view.value.formatted)));
  return EXIT_OK;
}

async function setStatus(status: "enabled" | "disabled", argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, STATUS_OPTIONS);
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
