import { createApproverClient } from "@warden/sdk";
import type { APPROVALS_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { allowedHosts, checkWebhook, CLI_WATCH_DURABLE, watchApprovals } from "./approvals-watch.js";
import { CliError, EXIT_OK, usageError } from "../errors.js";
import type { Command } from "../io.js";
import { emit, renderTable } from "../output.js";

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
      : renderTable(approvals, [
          { title: "APPROVAL", value: (a) => a.approvalId },
          { title: "TOOL", value: (a) => a.tool },
          { title: "GRADE", value: (a) => a.grade },
          { title: "BY", value: (a) => `${a.principal} (${a.mode})` },
          { title: "EXPIRES", value: (a) => a.expiresAt },
          { title: "WHO MAY DECIDE", value: (a) => (a.approvers.requesterMayConfirm ? "the requester or a human approver" : "a human approver") },
          { title: "ARGS", value: (a) => a.argsPreview, max: 80 },
        ]),
  );
  return EXIT_OK;
};
