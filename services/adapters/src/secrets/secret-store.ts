import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { fail, ok, type Outcome } from "@warden/contracts";
import { MIN_SECRET_LENGTH } from "../domain/redact.js";
import type { SecretSource } from "../manifest/manifest-schema.js";

export interface SecretStoreOptions {
  /** The executor's environment (secrets named `env:` come from here). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A YAML or JSON file of `key: value` (secrets named `file:` come from here); re-read on every resolve. */
  readonly secretsFile?: string | undefined;
}

/** Resolves a domain's secrets by name at run time; values are returned, never logged or stored. */
export class SecretStore {
  private readonly sources: ReadonlyMap<string, SecretSource>;

  constructor(
    sources: readonly SecretSource[],
    private readonly o: SecretStoreOptions,
  ) {
    this.sources = new Map(sources.map((s) => [s.name, s]));
  }

  /** The values of `names`; a missing or unusable secret fails the call with a message naming the secret, not its value. */
  async resolve(names: readonly string[]): Promise<Outcome<Map<string, string>>> {
    const out = new Map<string, string>();
    if (names.length === 0) return ok(out);
    let file: Record<string, unknown> | undefined;
    for (const name of names) {
      const source = this.sources.get(name);
      if (source === undefined) return fail("HANDLER_ERROR", `secret ${name} is not declared`);
      let value: unknown;
      if (source.env !== undefined) {
        value = this.o.env[source.env];
        if (value === undefined || value === "") return missing(name, `environment variable ${source.env} is not set`);
      } else {
        if (this.o.secretsFile === undefined) return missing(name, "no secrets file is configured (WARDEN_SECRETS_FILE)");
        if (file === undefined) {
          const read = await readSecretsFile(this.o.secretsFile);
          if (!read.ok) return read;
          file = read.value;
        }
        value = file[source.file!];
        if (value === undefined) return missing(name, `the secrets file has no key ${source.file}`);
      }
      if (typeof value !== "string") return missing(name, "its value is not a string");
      if (value.length < MIN_SECRET_LENGTH) return missing(name, `its value is shorter than ${MIN_SECRET_LENGTH} characters, too short to redact safely`);
      out.set(name, value);
    }
    return ok(out);
  }
}

function missing(name: string, why: string): Outcome<never> {
  return { ok: false, error: { code: "HANDLER_ERROR", message: `secret ${name} is unavailable: ${why}`, retryable: false } };
}

async function readSecretsFile(path: string): Promise<Outcome<Record<string, unknown>>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    return fail("HANDLER_ERROR", `cannot read the secrets file: ${(err as NodeJS.ErrnoException).code ?? "error"}`);
  }
  try {
    const parsed: unknown = parse(text);
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return fail("HANDLER_ERROR", "the secrets file is not a map of key: value");
    return ok(parsed as Record<string, unknown>);
  } catch {
    // the parser's message could quote the file's text, which is secret
    return fail("HANDLER_ERROR", "the secrets file is not valid YAML or JSON");
  }
}
