import type { CredentialUse } from "@warden/contracts/events";
import { Redactor } from "./domain/redactor.js";
import type { SecretStore } from "./secret-store.js";
import { ToolError } from "./tool-error.js";

/** A handler's access to the executor's secrets (`ctx.secrets`). */
export interface ToolSecrets {
  /**
   * The secret's current value, read from the executor's secret store when asked (so a rotated
   * value is used at once). A secret bound to the principal gives the value of the principal the
   * call runs for (`ctx.onBehalfOf`), never another's. Whatever the handler then returns or throws
   * is redacted of it before it is recorded. Call it in each run rather than keeping the value:
   * only values asked for in this call are redacted from this call's result.
   * @throws {@link ToolError} naming the secret (never its value): `HANDLER_ERROR` when it is not
   *   declared, not set, or shorter than 8 bytes; `CREDENTIAL_UNAVAILABLE` when it is bound to the
   *   principal and that principal has none. The call fails with it unless caught.
   */
  get(name: string): Promise<string>;
}

/** The secrets one call asked for, whose they were, and the redactor they make. */
export class CallSecrets implements ToolSecrets {
  private readonly values = new Map<string, string>();

  /** `onBehalfOf`: the principal the call runs for, whose value a principal-bound secret gives. */
  constructor(
    private readonly store: SecretStore,
    private readonly onBehalfOf: string,
  ) {}

  async get(name: string): Promise<string> {
    const r = await this.store.resolve([name], this.onBehalfOf);
    // as the store said it, retryable included: a missing credential does not appear on a retry
    if (!r.ok) throw new ToolError(r.error);
    const value = r.value.get(name)!;
    this.values.set(name, value);
    return value;
  }

  redactor(): Redactor {
    return new Redactor(this.values);
  }

  /** Which secrets the call used and whose they were (names only), for its record. */
  used(): CredentialUse[] {
    return [...this.values.keys()].sort().map((name) => this.store.useOf(name, this.onBehalfOf));
  }
}
