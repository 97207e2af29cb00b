import { watchJsonMap, type Logger } from "@warden/bus";
import { EMPTY_POLICY_DOCUMENT, POLICY_DOCUMENT_KEY, PolicyDocumentSchema, type PolicyDocument } from "@warden/contracts";
import type { KV } from "@warden/bus";

export interface PolicyWatch {
  /** The document in force: the stored one, or the built-in defaults when none is stored. */
  current(): PolicyDocument;
  stop(): void;
}

/** Follows the policy document in KV (the policy service owns it); the ToolView reads it from here. */
export async function startPolicyWatch(kv: KV, log: Logger): Promise<PolicyWatch> {
  let doc: PolicyDocument = EMPTY_POLICY_DOCUMENT;
  const watch = await watchJsonMap(
    kv,
    PolicyDocumentSchema,
    (_key, value) => {
      doc = value ?? EMPTY_POLICY_DOCUMENT;
      if (value === undefined) log.warn({ version: doc.version }, "policy document absent or invalid, using built-in defaults");
      else log.info({ version: doc.version }, "policy document loaded");
    },
    POLICY_DOCUMENT_KEY,
  );
  return {
    current: () => doc,
    stop: () => watch.stop(),
  };
}
