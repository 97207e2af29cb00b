import { ActionTypeSchema, ACTION_TYPES, GradeSchema, PermissionLevelSchema, ToolIntentSchema } from "@warden/contracts/descriptor";
import { createAgentClient } from "@warden/sdk";
import { defaultPrincipal } from "../args.js";
import type { RESOLVE_OPTIONS } from "../command-list.js";
import { existingHome, withBus } from "../connect.js";
import { parseFlags, parseFormat, parseMode, parseToken } from "../domain/options.js";
import { toolViewText } from "../domain/tool-table.js";
import { CliError, EXIT_OK, usageError } from "../errors.js";
import type { Command } from "../io.js";
import { emit, pretty, renderTable } from "../output.js";

/** `warden resolve --goal TEXT [...]`: an intent's ranked candidates and the view of just those. */
export const resolveCommand: Command<typeof RESOLVE_OPTIONS> = async ({ values }, io) => {
  const format = parseFormat(values.format, "table");
  const principal = values.principal ?? defaultPrincipal(io.env);
  const mode = parseMode(values.mode, "human");
  const scope = values.scope === undefined ? null : parseToken("--scope", values.scope);
  const grade = values.grade === undefined ? undefined : GradeSchema.safeParse(values.grade);
  if (grade !== undefined && !grade.success) throw usageError(`--grade is read, write or send, not ${JSON.stringify(values.grade)}`);
  const actionType = values["action-type"] === undefined ? undefined : ActionTypeSchema.safeParse(values["action-type"]);
  if (actionType !== undefined && !actionType.success) throw usageError(`--action-type is one of ${ACTION_TYPES.join(", ")}, not ${JSON.stringify(values["action-type"])}`);
  const maxLevel = values["max-level"] === undefined ? undefined : PermissionLevelSchema.safeParse(values["max-level"]);
  if (maxLevel !== undefined && !maxLevel.success) throw usageError(`--max-level is L0, L1, L2, L3, L4 or L5, not ${JSON.stringify(values["max-level"])}`);
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 50)) throw usageError(`--limit is a whole number from 1 to 50, not ${JSON.stringify(values.limit)}`);
  const intent = ToolIntentSchema.safeParse({
    goal: values.goal,
    ...(values.task === undefined ? {} : { task: values.task }),
    ...(values.target === undefined ? {} : { target: values.target }),
    ...(values.domain === undefined ? {} : { domain: values.domain }),
    ...(grade === undefined ? {} : { grade: grade.data }),
    ...(actionType === undefined ? {} : { actionType: actionType.data }),
    ...(maxLevel === undefined ? {} : { maxLevel: maxLevel.data }),
  });
  if (!intent.success) throw usageError(`the intent: ${intent.error.issues[0]?.path.join(".") ?? ""} ${intent.error.issues[0]?.message ?? "invalid"}`.trim());
  const asName = values.as ?? (existingHome(io)?.identity(principal) ? principal : undefined);
  const r = await withBus(io, { name: asName, creds: values.creds, fallback: "admin", defaulted: values.as === undefined }, (bus) =>
    createAgentClient({ bus, principal, mode }).resolve(intent.data, { format, explain: values.explain ?? false, flags: parseFlags(values.flags), scope, ...(limit === undefined ? {} : { limit }) }),
  );
  if (!r.ok) throw new CliError(r.error.code, r.error.message);
  const candidates = r.value.view.candidates ?? [];
  emit(io, values.json ?? false, r.value, () => {
    if (format !== "table") return pretty(r.value.formatted);
    const ranked =
      candidates.length === 0
        ? "no tool this caller may see matches the intent"
        : renderTable(candidates, [
            { title: "SCORE", value: (c) => String(c.score) },
            { title: "TOOL", value: (c) => c.name },
            { title: "GRADE", value: (c) => c.grade },
            { title: "WHY", value: (c) => c.reasons.join("; ") },
          ]);
    return `${ranked}\n\n${toolViewText(r.value.view, values.explain ?? false)}`;
  });
  return EXIT_OK;
};
