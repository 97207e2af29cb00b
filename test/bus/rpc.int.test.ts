import { describe, expect, it } from "vitest";
import { useTestNats } from "@warden/testing";
import { newId } from "@warden/contracts/events";
import { callEventSubject, STREAM_CALLS } from "@warden/contracts/subjects";
import { errors } from "@nats-io/transport-node";
import { requestRpc, serveRpc, silentLogger } from "@warden/bus";

describe("serveRpc", () => {
  const t = useTestNats(async (nats) => {
    const server = await nats.connectAs({ kind: "service", name: "registry", role: "registry" });
    const asker = await nats.connectAs({ kind: "executor", name: "kb-executor", domains: ["kb"] });
    serveRpc(server, "warden.registry.list", "q", silentLogger(), async (body) => {
      const fail = (body as { fail?: string }).fail;
      // what a handler meets while JetStream elects a leader, restarts or heals a partition
      if (fail === "no-answer") throw new errors.TimeoutError();
      if (fail === "bug") throw new Error("a bug in the handler");
      return { ok: true, value: { answer: 42 } };
    });
    // the subscription reaches the server before anyone asks (on a loaded machine it may not have yet)
    await server.nc.flush();
    return { asker };
  });

  it("answers a request on the asker's inbox", async () => {
    expect(await requestRpc(t.asker, "warden.registry.list", {})).toEqual({ ok: true, value: { answer: 42 } });
  });

  it("never answers on a reply subject that is not an inbox, so no answer lands on the call stream", async () => {
    const callId = newId();
    const forged = callEventSubject("kb", callId, "ToolArgsValidated");
    t.asker.nc.publish("warden.registry.list", new TextEncoder().encode("{}"), { reply: forged });
    await t.asker.nc.flush();
    // the answer to a real request, asked after the forged one on the same connection, proves the first was handled
    expect(await requestRpc(t.asker, "warden.registry.list", {})).toMatchObject({ ok: true });
    const admin = await t.nats.bus("check");
    expect(await admin.jsm.streams.getMessage(STREAM_CALLS, { last_by_subj: forged })).toBeNull();
  });

  it("answers a handler that met no answer as UNAVAILABLE (retryable), and a handler's bug as INTERNAL", async () => {
    expect(await requestRpc(t.asker, "warden.registry.list", { fail: "no-answer" })).toMatchObject({ ok: false, error: { code: "UNAVAILABLE", retryable: true } });
    expect(await requestRpc(t.asker, "warden.registry.list", { fail: "bug" })).toMatchObject({ ok: false, error: { code: "INTERNAL", message: "a bug in the handler" } });
  });
});
