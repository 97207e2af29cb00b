import { dirname, resolve } from "node:path";
import { parseManifest, probeNetworkSandbox, registerMcpTools, toolDescriptor, type Manifest } from "@warden/adapters";
import { silentLogger } from "@warden/bus";
import { ToolDescriptorSchema, ToolStatusSchema, type ToolDescriptor, type ToolStatus } from "@warden/contracts/descriptor";
import { createRegistryClient } from "@warden/sdk";
import { onePositional } from "../args.js";
import type { REGISTER_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { CliError, EXIT_OK, usageError } from "../errors.js";
import { readNamedText } from "../named-file.js";
import type { Command } from "../io.js";
import { emit, renderTable } from "../output.js";

interface Row {
  readonly name: string;
  readonly version: string;
  readonly grade: string;
  readonly status: string;
  readonly created: boolean;
}

/**
 * `warden register FILE` validates a tool manifest (errors name their line) and registers its
 * tools; `--discover` also starts its MCP server once to register what it offers (as discovered);
 * `--dry-run` only validates and prints the descriptors.
 */
export const registerCommand: Command<typeof REGISTER_OPTIONS> = async ({ values, positionals }, io) => {
  const json = values.json ?? false;
  const file = resolve(io.cwd, onePositional(positionals, "FILE (a YAML or JSON tool manifest)"));
  const text = await readNamedText(file);
  const parsed = parseManifest(text, file);
  if (!parsed.ok) throw new CliError("DESCRIPTOR_INVALID", `the manifest is invalid:\n${parsed.message}`);
  const manifest = parsed.manifest;
  const status = parseStatus(values.status, manifest.status);
  const descriptors = manifest.tools.map((t) => ToolDescriptorSchema.parse(toolDescriptor(manifest.domain, t, manifest.secrets)));

  if (values["dry-run"]) {
    emit(io, json, { ok: true, domain: manifest.domain, descriptors, mcp: manifest.mcp !== undefined }, () => dryRunText(manifest, descriptors));
    return EXIT_OK;
  }
  const rows = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, async (bus) => {
    const out: Row[] = [];
    if (descriptors.length > 0) {
      const r = await createRegistryClient(bus).register(descriptors, status);
      if (!r.ok) throw new CliError(r.error.code, r.error.message);
      const grades = new Map(descriptors.map((d) => [d.name, d.grade]));
      for (const x of r.value.registered) out.push({ ...x, grade: grades.get(x.name) ?? "?" });
    }
    if (values.discover && manifest.mcp) {
      const found = await registerMcpTools({
        bus,
        log: silentLogger(),
        loaded: { manifest, file, dir: dirname(file) },
        env: io.env,
        secretsFile: io.env["WARDEN_SECRETS_FILE"],
        sandbox: await probeNetworkSandbox(),
      });
      if (!found.ok) throw new CliError(found.error.code, found.error.message);
      for (const t of found.value.tools) {
        out.push({ name: t.descriptor.name, version: t.descriptor.version, grade: t.descriptor.grade, status: t.isNew ? "discovered" : "unchanged", created: t.isNew });
      }
    }
    return out;
  });
  const note = manifest.mcp && !values.discover ? "the MCP server's tools are registered (as discovered) when the adapters executor starts, or now with --discover" : undefined;
  emit(io, json, { ok: true, domain: manifest.domain, registered: rows, ...(note ? { note } : {}) }, () =>
    [
      rows.length > 0
        ? renderTable(rows, [
            { title: "NAME", value: (r) => r.name },
            { title: "VERSION", value: (r) => r.version },
            { title: "GRADE", value: (r) => r.grade },
            { title: "STATUS", value: (r) => r.status },
            { title: "NEW", value: (r) => (r.created ? "yes" : "no") },
          ])
        : "no tools registered",
      ...(note ? [note] : []),
      ...(rows.some((r) => r.status === "discovered") ? ["enable a tool with `warden tools enable NAME`"] : []),
    ].join("\n"),
  );
  return EXIT_OK;
};

function parseStatus(value: string | undefined, fallback: ToolStatus): ToolStatus {
  if (value === undefined) return fallback;
  const r = ToolStatusSchema.safeParse(value);
  if (!r.success) throw usageError(`--status must be enabled, discovered or disabled, not ${JSON.stringify(value)}`);
  return r.data;
}

function dryRunText(manifest: Manifest, descriptors: readonly ToolDescriptor[]): string {
  const lines = [`manifest for domain ${manifest.domain} is valid`];
  if (descriptors.length > 0) {
    lines.push(
      renderTable(descriptors, [
        { title: "NAME", value: (d) => d.name },
        { title: "VERSION", value: (d) => d.version },
        { title: "GRADE", value: (d) => d.grade },
        { title: "NETWORK", value: (d) => d.network ?? "-" },
        { title: "SECRETS", value: (d) => (d.secrets ?? []).join(",") || "-" },
      ]),
    );
  }
  if (manifest.mcp) lines.push(`MCP server (${manifest.mcp.transport}): its tools are discovered when the executor starts`);
  return lines.join("\n");
}
