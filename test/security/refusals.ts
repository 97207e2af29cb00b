import { expect } from "vitest";
import type { MsgHdrs } from "@nats-io/transport-node";
import type { Bus } from "@warden/bus";

/** How the server says no: a permissions violation, on a publish (a request) or a subscription. */
export const PERMISSION_VIOLATION = /Permissions Violation/i;

const encoder = new TextEncoder();

function body(payload: unknown): Uint8Array {
  if (payload instanceof Uint8Array) return payload;
  return encoder.encode(typeof payload === "string" ? payload : JSON.stringify(payload ?? {}));
}

/**
 * A raw request, as an attacker holding the connection would send it (a JetStream publish, a KV
 * put, a JetStream API call and an RPC are all requests). A refused publish rejects at once with
 * the server's permissions violation.
 */
export function rawRequest(bus: Bus, subject: string, payload?: unknown, opts: { timeoutMs?: number; headers?: MsgHdrs } = {}): Promise<unknown> {
  return bus.nc.request(subject, body(payload), { timeout: opts.timeoutMs ?? 2_000, ...(opts.headers ? { headers: opts.headers } : {}) });
}

/** The operation must be refused by the server itself: a permissions violation, not an answer. */
export async function expectRefused(operation: Promise<unknown>): Promise<void> {
  const outcome = await operation.then(
    (value) => ({ refused: false as const, value }),
    (err: unknown) => ({ refused: true as const, err }),
  );
  if (!outcome.refused) {
    const shown = outcome.value instanceof Object && "data" in outcome.value ? new TextDecoder().decode((outcome.value as { data: Uint8Array }).data) : outcome.value;
    expect.fail(`the server let the operation through (answer: ${String(JSON.stringify(shown)).slice(0, 300)})`);
  }
  expect(String((outcome.err as Error)?.message ?? outcome.err)).toMatch(PERMISSION_VIOLATION);
}

/** Whether the server refused an operation (anything else, an answer, an API error or a timeout, is not a refusal). */
export async function refusedByServer(operation: Promise<unknown>): Promise<boolean> {
  try {
    await operation;
    return false;
  } catch (err) {
    return PERMISSION_VIOLATION.test(String((err as Error)?.message ?? err));
  }
}

/**
 * Subscribes and reports whether the server refused it. The server answers a SUB before the PONG
 * of the flush that follows, so a refusal has closed the subscription once the flush returns.
 */
export async function subscriptionRefused(bus: Bus, subject: string): Promise<boolean> {
  const sub = bus.nc.subscribe(subject, { callback: () => undefined });
  await bus.nc.flush();
  if (!sub.isClosed()) {
    sub.unsubscribe();
    return false;
  }
  const err = await sub.closed;
  return err instanceof Error && PERMISSION_VIOLATION.test(err.message);
}

export async function expectSubscribeRefused(bus: Bus, subject: string): Promise<void> {
  expect(await subscriptionRefused(bus, subject), `subscribing to ${subject} must be refused`).toBe(true);
}
