import { kvGetJson } from "@warden/bus";
import { BUCKET_BUDGETS, isSafeToken, LEDGER_KEY_PREFIX, parseLedgerKey } from "@warden/contracts/subjects";
import { getPolicyDocument } from "@warden/policy";
import { LedgerStateSchema, type LedgerState } from "@warden/policy-engine";
import type { BUDGETS_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { ledgerRows, ledgersText } from "../domain/budgets-format.js";
import { CliError, EXIT_OK, usageError } from "../errors.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";

/**
 * `warden budgets [--ledger ID]`: the ledger budgets of the policy in force (`budgets.ledgers`),
 * per holder, for the period in progress: what settled calls spent, what open calls hold, what is
 * left and when it resets. Read from `warden_budgets` (keys `ledger.<id>.<holder>`).
 */
export const budgetsCommand: Command<typeof BUDGETS_OPTIONS> = async ({ values }, io) => {
  if (values.ledger !== undefined && !isSafeToken(values.ledger)) throw usageError(`--ledger ${JSON.stringify(values.ledger)} is not a ledger id`);
  const { doc, stored } = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, async (bus) => {
    const d = await getPolicyDocument(bus);
    if (!d.ok) throw new CliError(d.error.code, d.error.message);
    const kv = await bus.kvm.open(BUCKET_BUDGETS);
    const keys: string[] = [];
    for await (const k of await kv.keys(`${LEDGER_KEY_PREFIX}.${values.ledger ?? "*"}.*`)) keys.push(k);
    const out: { ledger: string; holder: string; state: LedgerState | undefined }[] = [];
    for (const key of keys.sort()) {
      const parsed = parseLedgerKey(key);
      if (parsed === undefined) continue;
      out.push({ ...parsed, state: (await kvGetJson(kv, key, LedgerStateSchema))?.value });
    }
    return { doc: d.value, stored: out };
  });
  const rows = ledgerRows(doc, stored, Date.now()).filter((r) => values.ledger === undefined || r.ledger === values.ledger);
  emit(io, values.json ?? false, { policyVersion: doc.version, ledgers: rows }, () => ledgersText(doc.version, rows));
  return EXIT_OK;
};
