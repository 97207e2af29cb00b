import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { entryToJson, type Bus } from "@warden/bus";
import { BUCKET_POLICY, EMPTY_POLICY_DOCUMENT, POLICY_DOCUMENT_KEY, PolicyDocumentSchema, type PolicyDocument } from "@warden/contracts";
import { putPolicyDocument } from "@warden/policy";
import { stringify as toYaml } from "yaml";
import { onePositional } from "../args.js";
import type { POLICY_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { CliError, EXIT_OK } from "../errors.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";

/** `warden policy set FILE` (JSON or YAML). */
export const policySetCommand: Command<typeof POLICY_OPTIONS> = async ({ values, positionals }, io) => {
  const file = resolve(io.cwd, onePositional(positionals, "FILE (a JSON or YAML policy document)"));
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new CliError("NOT_FOUND", `cannot read ${file}: ${(err as Error).message}`);
  }
  const r = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, (bus) => putPolicyDocument(bus, text));
  if (!r.ok) throw new CliError(r.error.code, r.error.message);
  const { document, revision } = r.value;
  emit(io, values.json ?? false, { ok: true, version: document.version, revision, document }, () =>
    `policy ${document.version} stored (revision ${revision}); services reload it at once`,
  );
  return EXIT_OK;
};

/** `warden policy show`: the stored document, or the built-in defaults when none is stored. */
export const policyShowCommand: Command<typeof POLICY_OPTIONS> = async ({ values }, io) => {
  const { document, stored } = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, readPolicy);
  emit(io, values.json ?? false, { stored, document }, () =>
    `${stored ? "# the stored policy document" : "# no policy document is stored: the built-in defaults are in force"}\n${toYaml(document)}`,
  );
  return EXIT_OK;
};

async function readPolicy(bus: Bus): Promise<{ document: PolicyDocument; stored: boolean }> {
  const kv = await bus.kvm.open(BUCKET_POLICY);
  const raw = await kv.get(POLICY_DOCUMENT_KEY);
  if (raw === null || raw.operation !== "PUT") return { document: EMPTY_POLICY_DOCUMENT, stored: false };
  const entry = entryToJson(raw, PolicyDocumentSchema);
  // the services keep the last valid document in force when an invalid one is written
  if (entry === undefined) throw new CliError("INTERNAL", "the stored policy document is invalid; store a valid one with `warden policy set FILE`");
  return { document: entry.value, stored: true };
}
