import { pino } from "pino";
import type { Bus } from "@warden/bus";
import { createApproverClient, startWebhookNotifier, webhookTarget, type WebhookNotifier } from "@warden/sdk";
import type { ApprovalRequested } from "@warden/contracts/events";
import { CliError, EXIT_OK } from "../errors.js";
import type { CommandIo } from "../io.js";

/** The durable name `--watch` keeps its place under unless given `--durable`. */
export const CLI_WATCH_DURABLE = "cli";

export interface WatchSettings {
  readonly approver: string;
  readonly json: boolean;
  readonly durable: string;
  readonly webhook?: string;
  readonly allowHosts: readonly string[];
}

/** The hosts a webhook may be on besides loopback: `--webhook-allow`, else WARDEN_WEBHOOK_ALLOW_HOSTS. */
export function allowedHosts(option: string | undefined, env: NodeJS.ProcessEnv): string[] {
  const text = option ?? env["WARDEN_WEBHOOK_ALLOW_HOSTS"] ?? "";
  return text.split(",").map((h) => h.trim()).filter((h) => h.length > 0);
}

/** Refuses a webhook URL before connecting, so a wrong host is an operator's error, not a late surprise. */
export function checkWebhook(settings: WatchSettings): void {
  if (settings.webhook === undefined) return;
  const target = webhookTarget(settings.webhook, settings.allowHosts);
  if (!target.ok) throw new CliError(target.error.code, target.error.message);
}

/**
 * `warden approvals --watch`: the person's durable delivery printed as it comes (and posted to a
 * webhook when asked) until Ctrl-C. Requests made while no watch ran under this durable come first.
 */
export async function watchApprovals(bus: Bus, settings: WatchSettings, io: CommandIo): Promise<number> {
  const approver = createApproverClient({ bus, approver: settings.approver });
  let notifier: WebhookNotifier | undefined;
  if (settings.webhook !== undefined) {
    // logs on stderr, so stdout stays the cards
    const log = pino({ base: { service: "warden-approvals-webhook" }, level: io.env["LOG_LEVEL"] ?? "warn", timestamp: pino.stdTimeFunctions.isoTime }, pino.destination(2));
    const started = startWebhookNotifier({ approver, url: settings.webhook, allowHosts: settings.allowHosts, durable: `${settings.durable}-webhook`, log });
    if (!started.ok) throw new CliError(started.error.code, started.error.message);
    notifier = started.value;
  }
  const watch = approver.watch({ durable: settings.durable });
  io.err(`watching ${settings.approver}'s approval requests (durable ${settings.durable}${settings.webhook ? `, posting to ${settings.webhook}` : ""}); Ctrl-C stops`);
  const printing = (async () => {
    for await (const request of watch) io.out(settings.json ? JSON.stringify(request) : cardLine(request));
  })();
  await Promise.race([io.stopSignal(), printing]);
  watch.stop();
  await printing;
  await notifier?.stop();
  if (watch.error !== undefined) throw new CliError(watch.error.code, watch.error.message);
  return EXIT_OK;
}

/** One human line per card: what, by whom, until when, and the id to decide it by. */
export function cardLine(r: ApprovalRequested): string {
  const d = r.data;
  const flag = d.noLiveExecutor === true ? "  NO LIVE EXECUTOR (a grant waits for one)" : "";
  return `${d.approvalId}  ${r.tool} (${d.grade})  by ${r.principal} (${r.mode})  expires ${d.expiresAt}${flag}  args ${d.argsPreview}`;
}
