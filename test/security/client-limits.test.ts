import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inboxPrefixOf } from "@warden/contracts";
import { eventually, startTestNats, type TestNats } from "@warden/testing";

describe("limits in a client's user JWT, enforced by the server", () => {
  let nats: TestNats;
  beforeAll(async () => {
    nats = await startTestNats();
  });
  afterAll(async () => {
    await nats.stop();
  });

  it("refuses an agent's 1,001st subscription, and the first 1,000 work", async () => {
    const bus = await nats.connectAs({ kind: "agent", name: "flooder" });
    try {
      const prefix = inboxPrefixOf("flooder");
      const errors: string[] = [];
      void (async () => {
        for await (const s of bus.nc.status()) if (s.type === "error" || s.type === "disconnect") errors.push(String("error" in s ? s.error : s.type));
      })();
      const subs = Array.from({ length: 1_000 }, (_, i) => bus.nc.subscribe(`${prefix}.s${i}`));
      await bus.nc.flush();
      // the first 1,000 stand: no error, none closed
      expect(errors).toEqual([]);
      expect(subs.filter((sub) => sub.isClosed())).toEqual([]);
      const over = bus.nc.subscribe(`${prefix}.s1000`);
      const why = await Promise.race([
        over.closed.then(
          () => "closed",
          (err: unknown) => String(err),
        ),
        eventually(() => {
          expect(errors.join(" ")).toMatch(/maximum subscriptions/i);
          return errors.join(" ");
        }, 10_000),
      ]);
      expect(`${why} ${errors.join(" ")}`).toMatch(/maximum subscriptions exceeded/i);
    } finally {
      await bus.close().catch(() => undefined);
    }
  });
});
