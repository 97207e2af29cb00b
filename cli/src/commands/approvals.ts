import { createApproverClient } from "@warden/sdk";
import type { APPROVALS_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { allowedHosts, checkWebhook, CLI_WATCH_DURABLE, watchApprovals } from "./approvals-watch.js";
import { CliError, EXIT_OK, usageError } from "../errors.js";
import type { Command } from "../io.js";
import { approvalCardText } from "../domain/approval-card.js";
import { emit } from "../output.js";

/** `warden approvals`: what waits for a person, with the argsHash a decision must echo. */
export const approvalsCommand: Command<typeof APPROVALS_OPTIONS> = async ({ values }, io) => {
  // the inbox is a person's (--as is required): it lists what that person may decide
  const approver = values.as;
  if (values.watch === true) {
    const settings = { approver, json: values.json ?? false, durable: values.durable ?? CLI_WATCH_DURABLE, allowHosts: allowedHosts(values["webhook-allow"], io.env), ...(values.webhook === undefined ? {} : { webhook: values.webhook }) };
    checkWebhook(settings);
    return withBus(io, { name: approver, creds: values.creds }, (bus) => watchApprovals(bus, settings, io));
  }
  if (values.durable !== undefined || values.webhook !== undefined) throw usageError("--durable and --webhook go with --watch");
  const r = await withBus(io, { name: approver, creds: values.creds }, (bus) => createApproverClient({ bus, approver }).pending());
  if (!r.ok) throw new CliError(r.error.code, r.error.message);
  const approvals = r.value;
  emit(io, values.json ?? false, { approvals }, () =>
    approvals.length === 0
      ? "no pending approvals"
      : approvals.map(approvalCardText).join("\n\n"),
  );
  return EXIT_OK;
};
