import { isSafeToken } from "@warden/contracts";
import { whatIf } from "@warden/policy-engine";
import { onePositional } from "../args.js";
import type { POLICY_WHATIF_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { whatifText, type WhatIfScope } from "../domain/policy-format.js";
import { parseTimeBound } from "../domain/time-range.js";
import { EXIT_OK, usageError } from "../errors.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";
import { readPolicyDocument, registryTools } from "../policy-file.js";
import { readWhatIfCalls } from "../whatif-reader.js";

/**
 * `warden policy whatif FILE [--since T] [--until T] [--principal P] [--tool T]`: the recorded
 * policy decisions of the calls requested in the range, replayed through the candidate document
 * (rules only: rate limits, budgets and delegation depend on history and are counted, not
 * replayed), and every call whose decision would change, grouped by the decisions and rules
 * before and after. It reads the stream and the registry's descriptors; nothing runs.
 */
export const policyWhatifCommand: Command<typeof POLICY_WHATIF_OPTIONS> = async ({ values, positionals }, io) => {
  const path = onePositional(positionals, "FILE (the candidate policy document)");
  const now = new Date();
  const since = parseTimeBound("--since", values.since, now);
  const until = parseTimeBound("--until", values.until, now);
  if (values.principal !== undefined && !isSafeToken(values.principal)) throw usageError(`--principal ${JSON.stringify(values.principal)} is not a principal`);
  const examples = parseExamples(values.examples);
  const { document } = await readPolicyDocument(io, path);
  const { read, tools } = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, async (bus) => ({
    read: await readWhatIfCalls(bus, { ...(since ? { since } : {}), ...(until ? { until } : {}) }, {
      ...(values.principal === undefined ? {} : { principal: values.principal }),
      ...(values.tool === undefined ? {} : { tool: values.tool }),
    }),
    tools: await registryTools(bus),
  }));
  const report = whatIf(document, read.decisions, tools, { examples });
  const scope: WhatIfScope = { file: path, since: since?.toISOString() ?? null, until: until?.toISOString() ?? null, requested: read.requested, undecided: read.undecided };
  const filter = { ...(values.principal === undefined ? {} : { principal: values.principal }), ...(values.tool === undefined ? {} : { tool: values.tool }) };
  emit(io, values.json ?? false, { ...scope, filter, ...report, stream: { read: read.read, toSeq: read.toSeq, invalidEvents: read.invalid } }, () => whatifText(scope, report));
  return EXIT_OK;
};

function parseExamples(text: string | undefined): number {
  if (text === undefined) return 3;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 1000) throw usageError(`--examples must be a whole number from 0 to 1000, not ${JSON.stringify(text)}`);
  return n;
}
