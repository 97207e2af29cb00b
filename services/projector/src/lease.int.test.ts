import { describe, expect, it } from "vitest";
import { silentLogger } from "@warden/bus";
import { eventually, useTestNats } from "@warden/testing";
import { runLease } from "./lease.js";

describe("the projector's lease", () => {
  const t = useTestNats();

  it("starts projecting again at the next renewal when starting failed once it was acquired (regression: a partition's heal left it holding the lease, projecting nothing)", async () => {
    let attempts = 0;
    let projecting = false;
    const lease = await runLease({
      bus: t.bus,
      log: silentLogger(),
      holder: "projector-test",
      ttlMs: 400,
      onAcquired: async () => {
        attempts++;
        if (attempts === 1) throw new Error("JetStream system temporarily unavailable");
        projecting = true;
      },
      onLost: async () => {
        projecting = false;
      },
    });
    try {
      await eventually(() => expect(projecting).toBe(true), 5_000);
      expect(attempts).toBe(2);
      expect(lease.holds()).toBe(true);
    } finally {
      await lease.stop();
    }
    expect(projecting).toBe(false);
  });
});
