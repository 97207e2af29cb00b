import { createApproverClient } from "@warden/sdk";
import type { SESSIONS_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { CliError, EXIT_OK } from "../errors.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";

/** `warden sessions --as P`: the session grants in force that P made (an operator: all of them). */
export const sessionsCommand: Command<typeof SESSIONS_OPTIONS> = async ({ values }, io) => {
  const who = values.as;
  const r = await withBus(io, { name: who, creds: values.creds }, (bus) => createApproverClient({ bus, approver: who }).sessions());
  if (!r.ok) throw new CliError(r.error.code, r.error.message);
  const sessions = r.value;
  emit(io, values.json ?? false, { sessions }, () =>
    sessions.length === 0
      ? "no session grants in force"
      : sessions
          .map((s) =>
            [
              `session ${s.grantId}  by ${s.approver}, until ${s.expiresAt}`,
              `  covers  ${s.principal} (mode ${s.mode}) calling ${s.tool}@${s.version} with ${s.covers}`,
              `  revoke  warden revoke ${s.grantId} --session --as ${who}`,
            ].join("\n"),
          )
          .join("\n\n"),
  );
  return EXIT_OK;
};
