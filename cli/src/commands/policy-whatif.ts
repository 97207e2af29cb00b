import { isSafeToken } from "@warden/contracts/subjects";
import { historyRules, whatIf, type HistoryRecord } from "@warden/policy-engine";
import { readAuditCallEvents } from "../audit-reader.js";
import { onePositional } from "../args.js";
import type { POLICY_WHATIF_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { whatifText, type WhatIfScope } from "../domain/policy-format.js";
import { historyFromCalls, historySince } from "../domain/stream-history.js";
import { parseTimeBound } from "../domain/time-range.js";
import { EXIT_OK, usageError } from "../errors.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";
import { readPolicyDocument, registryTools } from "../policy-file.js";
import { readWhatIfCalls } from "../whatif-reader.js";

/**
 * `warden policy whatif FILE [--since T] [--until T] [--principal P] [--tool T]`: the recorded
 * policy decisions of the calls requested in the range, replayed through the candidate document
 * (rules, and their history conditions over the calls admitted before each one, read from the
 * stream from the longest history window before the range; rate limits, budgets and delegation
 * depend on the stage's state and are counted, not replayed), and every call whose decision would
 * change, grouped by the decisions and rules before and after. It reads the stream and the
 * registry's descriptors; nothing runs.
 */
export const policyWhatifCommand: Command<typeof POLICY_WHATIF_OPTIONS> = async ({ values, positionals }, io) => {
  const path = onePositional(positionals, "FILE (the candidate policy document)");
  const now = new Date();
  const since = parseTimeBound("--since", values.since, now);
  const until = parseTimeBound("--until", values.until, now);
  if (values.principal !== undefined && !isSafeToken(values.principal)) throw usageError(`--principal ${JSON.stringify(values.principal)} is not a principal`);
  const examples = parseExamples(values.examples);
  const { document } = await readPolicyDocument(io, path);
  // the calls a history condition could see: from its longest window before the range (the whole stream without --since)
  const historyFrom = historyRules(document).length === 0 ? null : since === undefined ? undefined : (historySince(document, since) ?? since);
  const { read, tools, history } = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, async (bus) => ({
    read: await readWhatIfCalls(bus, { ...(since ? { since } : {}), ...(until ? { until } : {}) }, {
      ...(values.principal === undefined ? {} : { principal: values.principal }),
      ...(values.tool === undefined ? {} : { tool: values.tool }),
    }),
    tools: await registryTools(bus),
    history: historyFrom === null ? undefined : historyFromCalls((await readAuditCallEvents(bus, historyFrom === undefined ? {} : { since: historyFrom })).calls),
  }));
  const report = whatIf(document, read.decisions, tools, { examples, ...(history === undefined ? {} : { history }) });
  const scope: WhatIfScope = {
    file: path,
    since: since?.toISOString() ?? null,
    until: until?.toISOString() ?? null,
    requested: read.requested,
    undecided: read.undecided,
    ...(history === undefined ? {} : { history: historyScope(history, historyFrom ?? undefined) }),
  };
  const filter = { ...(values.principal === undefined ? {} : { principal: values.principal }), ...(values.tool === undefined ? {} : { tool: values.tool }) };
  emit(io, values.json ?? false, { ...scope, filter, ...report, stream: { read: read.read, toSeq: read.toSeq, invalidEvents: read.invalid } }, () => whatifText(scope, report));
  return EXIT_OK;
};

/** What the history conditions were replayed over: admitted calls read, from when. */
function historyScope(history: readonly HistoryRecord[], from: Date | undefined): { since: string | null; calls: number } {
  return { since: from?.toISOString() ?? null, calls: history.length };
}

function parseExamples(text: string | undefined): number {
  if (text === undefined) return 3;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 1000) throw usageError(`--examples must be a whole number from 0 to 1000, not ${JSON.stringify(text)}`);
  return n;
}
