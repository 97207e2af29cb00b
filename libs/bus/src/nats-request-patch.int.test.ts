import { describe, expect, it } from "vitest";
import { RequestOne } from "@nats-io/nats-core/internal";
import { useTestNats } from "@warden/testing";
import { isNoAnswer } from "./nats-errors.js";

describe("the RequestOne patch (no dead RequestError per successful request)", () => {
  const t = useTestNats();

  it("is installed by @warden/bus, and requests still resolve, time out and meet no responders as before", async () => {
    expect((RequestOne.prototype as unknown as { wardenPatched?: boolean }).wardenPatched).toBe(true);
    const nc = t.bus.nc;
    const sub = nc.subscribe("patch.echo", { callback: (_err, m) => void m.respond(m.data) });
    try {
      const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => nc.request("patch.echo", String(i), { timeout: 2_000 })));
      expect(replies.map((r) => r.string())).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
      // a JetStream append is such a request too
      const ack = await t.bus.js.publish("warden.call.patch.c1.ToolArgsValidated", "{}");
      expect(ack.seq).toBeGreaterThan(0);
      const noResponders = await nc.request("patch.nobody", "x", { timeout: 1_000 }).catch((e: unknown) => e);
      expect(isNoAnswer(noResponders)).toBe(true);
      nc.subscribe("patch.silent", { callback: () => undefined });
      const timedOut = await nc.request("patch.silent", "x", { timeout: 200 }).catch((e: unknown) => e);
      expect((timedOut as Error).name).toBe("TimeoutError");
    } finally {
      sub.unsubscribe();
    }
  });
});
