import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { natsServersIn, startNatsServer } from "./nats-server.js";

describe("natsServersIn", () => {
  it("finds the server running in a folder, or under it, and no other", async () => {
    const root = mkdtempSync(join(tmpdir(), "warden-servers-in-"));
    const server = await startNatsServer({ storeDir: join(root, "store") });
    try {
      expect(natsServersIn(join(root, "store"))).toEqual([server.process.pid]);
      expect(natsServersIn(root)).toEqual([server.process.pid]);
      // a sibling whose name starts the same is another folder
      expect(natsServersIn(`${root}-other`)).toEqual([]);
    } finally {
      await server.stop();
    }
    expect(natsServersIn(root)).toEqual([]);
  });
});
