import { readFileSync } from "node:fs";
import { identityOfCreds } from "@warden/bus";
import { approverActions, DEFAULT_SESSION_IDLE_MS, ownCallsReader, startInboxFeed, startInboxServer } from "@warden/inbox-web";
import { createApproverClient } from "@warden/sdk";
import { pino } from "pino";
import type { INBOX_OPTIONS } from "../command-list.js";
import { busConfig, connectionFor, openBus } from "../connect.js";
import { parseDuration, parseToken } from "../domain/options.js";
import { CliError, EXIT_OK, usageError } from "../errors.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";

/**
 * `warden inbox --as alice`: alice's approvals as a web page on 127.0.0.1, live, decided as alice,
 * and her own calls with their timelines (the Calls page).
 * The page acts only through this process's connection, made with alice's own credentials (the
 * server lets them decide as alice and nobody else); the URL's one-time token (traded for an
 * expiring session cookie) and the Host check keep other local users and web pages out.
 */
export const inboxCommand: Command<typeof INBOX_OPTIONS> = async ({ values }, io) => {
  const person = parseToken("--as", values.as);
  const port = parsePort(values.port);
  const refreshMs = parseDuration("--refresh", values.refresh, 3_000);
  const sessionIdleMs = parseDuration("--session-idle", values["session-idle"], DEFAULT_SESSION_IDLE_MS);
  const { config } = connectionFor(io, { name: person, creds: values.creds });
  if (values.creds !== undefined) {
    const named = credsName(values.creds);
    if (named !== person) throw new CliError("FORBIDDEN", `credentials file ${values.creds} is ${named ?? "nobody"}'s, not ${person}'s: the inbox acts only as the person its credentials name`);
  }
  const log = pino(
    { base: { service: "warden-inbox", person }, level: busConfig({ LOG_LEVEL: "warn", ...io.env }).LOG_LEVEL, timestamp: pino.stdTimeFunctions.isoTime },
    pino.destination(2),
  );
  const bus = await openBus(config, `warden-inbox-${person}`);
  try {
    const client = createApproverClient({ bus, approver: person });
    // a first read tells at once whether these credentials may read this inbox at all
    const first = await client.pending();
    if (!first.ok) throw new CliError(first.error.code, `cannot read ${person}'s approvals: ${first.error.message}`);
    const feed = startInboxFeed({ client, refreshMs, log });
    // the Calls page reads through the same connection: alice's own calls, as the server lets her
    const server = await startInboxServer({ feed, actions: approverActions(client), calls: ownCallsReader(bus, person), port, ...(values.host === undefined ? {} : { host: values.host }), sessionIdleMs, log });
    emit(io, values.json ?? false, { person, url: server.url }, () => `warden inbox: ${person}'s approvals at ${server.url}\nopen that URL in your browser (its token opens the inbox once; the page links to ${person}'s calls); Ctrl-C stops`);
    await io.stopSignal();
    await server.stop();
    await feed.stop();
    return EXIT_OK;
  } finally {
    await bus.close();
  }
};

function parsePort(text: string | undefined): number {
  if (text === undefined) return 0;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw usageError(`--port must be 0..65535, not ${JSON.stringify(text)}`);
  return n;
}

function credsName(file: string): string | undefined {
  try {
    return identityOfCreds(readFileSync(file));
  } catch (err) {
    throw new CliError("NOT_FOUND", `cannot read credentials file ${file}: ${(err as Error).message}`);
  }
}
