import { mkdtempSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FREE_PORT_ATTEMPTS, freePort, natsServersIn, startNatsServer, startNatsServerOnFreePort } from "./nats-server.js";

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

describe("startNatsServerOnFreePort", () => {
  /** A port some other process holds, as one found free can be by the time the server binds it. */
  async function takenPort(): Promise<{ port: number; release: () => Promise<void> }> {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as AddressInfo).port;
    return { port, release: () => new Promise((resolve) => holder.close(() => resolve())) };
  }

  it("takes another port when the one it found free is taken before the server binds it", async () => {
    const taken = await takenPort();
    const offered: number[] = [];
    const nextPort = async () => {
      const port = offered.length === 0 ? taken.port : await freePort();
      offered.push(port);
      return port;
    };
    try {
      const server = await startNatsServerOnFreePort({ nextPort });
      try {
        expect(offered).toHaveLength(2);
        expect(server.url).toBe(`nats://127.0.0.1:${offered[1]}`);
      } finally {
        await server.stop();
      }
    } finally {
      await taken.release();
    }
  });

  it(`gives up after ${FREE_PORT_ATTEMPTS} ports, each taken, with the server's own reason`, async () => {
    const taken = await takenPort();
    let offered = 0;
    try {
      const started = startNatsServerOnFreePort({
        nextPort: async () => {
          offered++;
          return taken.port;
        },
      });
      await expect(started).rejects.toThrow(new RegExp(`no free port in ${FREE_PORT_ATTEMPTS} attempts .*address already in use`, "s"));
      expect(offered).toBe(FREE_PORT_ATTEMPTS);
    } finally {
      await taken.release();
    }
  });
});
