import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { fail, ok, type Outcome } from "@warden/contracts";
import { MIN_SECRET_BYTES } from "./domain/secret-patterns.js";

/** Where a secret's value comes from: an environment variable of the executor, or a key of the secrets file (exactly one). */
export interface SecretDeclaration {
  readonly name: string;
  readonly env?: string | undefined;
  readonly file?: string | undefined;
}

export interface SecretStoreOptions {
  /** The executor's environment (secrets declared with `env` come from here). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A YAML or JSON file of `key: value` (secrets declared with `file` come from here); re-read on every resolve, so a rotated value is used at once. */
  readonly secretsFile?: string | undefined;
}

/**
 * Resolves an executor's secrets by name at run time (the adapters' manifests and `ctx.secrets`
 * of TypeScript tools both read through it); values are returned, never logged or stored.
 */
export class SecretStore {
  private readonly declared: ReadonlyMap<string, SecretDeclaration>;

  constructor(
    declarations: readonly SecretDeclaration[],
    private readonly o: SecretStoreOptions,
  ) {
    this.declared = new Map(declarations.map((s) => [s.name, s]));
  }

  /** A store that declares nothing: every secret is unavailable. */
  static none(): SecretStore {
    return new SecretStore([], { env: {} });
  }

  /** The values of `names`; a missing or unusable secret fails with a message naming the secret, not its value. */
  async resolve(names: readonly string[]): Promise<Outcome<Map<string, string>>> {
    const out = new Map<string, string>();
    if (names.length === 0) return ok(out);
    let file: Record<string, unknown> | undefined;
    for (const name of names) {
      const source = this.declared.get(name);
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
        value = file[source.file ?? name];
        if (value === undefined) return missing(name, `the secrets file has no key ${source.file ?? name}`);
      }
      if (typeof value !== "string") return missing(name, "its value is not a string");
      if (Buffer.byteLength(value, "utf8") < MIN_SECRET_BYTES) {
        return missing(name, `its value is shorter than ${MIN_SECRET_BYTES} bytes, too short to redact safely`);
      }
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
