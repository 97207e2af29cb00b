import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { type CredentialUse } from "@warden/contracts/events";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { MIN_SECRET_BYTES } from "./domain/secret-patterns.js";

/** Whose a secret is: the executor's own (one value for every call), or each calling principal's. */
export type SecretBinding = "executor" | "principal";

/** Where a secret's value comes from: an environment variable of the executor, or a key of the secrets file (exactly one). */
export interface SecretDeclaration {
  readonly name: string;
  readonly env?: string | undefined;
  readonly file?: string | undefined;
  /**
   * `principal`: the secrets file's key holds a map of principal → value, and a call gets the value
   * of the principal it runs for (never another's, never a fallback); only a `file` secret can be.
   * @default "executor"
   */
  readonly bind?: SecretBinding | undefined;
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
    for (const s of declarations) {
      // a variable holds one value: it cannot tell one principal's credential from another's
      if (s.bind === "principal" && s.env !== undefined) throw new Error(`secret ${s.name}: a secret bound to the principal comes from a key of the secrets file (file), not an environment variable`);
    }
    this.declared = new Map(declarations.map((s) => [s.name, s]));
  }

  /** Whose the secret is; undefined when it is not declared. */
  bindingOf(name: string): SecretBinding | undefined {
    const s = this.declared.get(name);
    return s === undefined ? undefined : (s.bind ?? "executor");
  }

  /** What a call running for `onBehalfOf` records of the secret it used: the executor's, or that principal's. */
  useOf(name: string, onBehalfOf: string): CredentialUse {
    return this.bindingOf(name) === "principal" ? { secret: name, bind: "principal", principal: onBehalfOf } : { secret: name, bind: "executor" };
  }

  /** A store that declares nothing: every secret is unavailable. */
  static none(): SecretStore {
    return new SecretStore([], { env: {} });
  }

  /**
   * The values of `names` for a call running on behalf of `onBehalfOf` (used by the secrets bound
   * to the principal); a missing or unusable secret fails with a message naming the secret, not its
   * value, and a principal-bound one the principal has no value for fails CREDENTIAL_UNAVAILABLE.
   */
  async resolve(names: readonly string[], onBehalfOf?: string): Promise<Outcome<Map<string, string>>> {
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
        const key = source.file ?? name;
        value = Object.hasOwn(file, key) ? file[key] : undefined;
        if (value === undefined) return missing(name, `the secrets file has no key ${key}`);
        if (source.bind === "principal") {
          const own = principalValue(name, key, value, onBehalfOf);
          if (!own.ok) return own;
          value = own.value;
        }
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

/** The calling principal's entry of a principal-bound secret's map: its own, or a refusal naming the principal. */
function principalValue(name: string, key: string, map: unknown, onBehalfOf: string | undefined): Outcome<unknown> {
  if (map === null || typeof map !== "object" || Array.isArray(map)) return missing(name, `it is bound to the principal, but the secrets file's key ${key} is not a map of principal: value`);
  if (onBehalfOf === undefined) return missing(name, "it is bound to the principal, and no principal was given");
  // an own key only: a principal named like an Object property must not reach the prototype
  const value = Object.hasOwn(map, onBehalfOf) ? (map as Record<string, unknown>)[onBehalfOf] : undefined;
  if (value === undefined) {
    return { ok: false, error: { code: "CREDENTIAL_UNAVAILABLE", message: `${onBehalfOf} has no credential for secret ${name}: it is bound to the principal the call runs for, and no other credential is used instead`, retryable: false } };
  }
  return ok(value);
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
