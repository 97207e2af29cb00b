import { createApproverClient } from "@warden/sdk";
import { JSON_OPTION, parseCommandArgs, WHO_OPTIONS } from "../args.js";
import { withBus } from "../connect.js";
import { CliError, EXIT_OK, usageError } from "../errors.js";
import type { Command } from "../io.js";
import { emit, renderTable } from "../output.js";

/** `warden approvals`: what waits for a person, with the argsHash a decision must echo. */
export const approvalsCommand: Command = async (argv, io) => {
  const { values, positionals } = parseCommandArgs(argv, { ...JSON_OPTION, ...WHO_OPTIONS });
  if (positionals.length > 0) throw new CliError("INVALID_REQUEST", `unexpected arguments: ${positionals.join(" ")}`);
  // the inbox is a person's: it lists what that person may decide
  if (values.as === undefined) throw usageError("--as NAME is required: whose approval inbox (e.g. --as alice)");
  const approver = values.as;
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
