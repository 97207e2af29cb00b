import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findNatsServerBinary, natsServerVersionText } from "./nats-server.js";

describe("findNatsServerBinary", () => {
  it("takes the binary NATS_SERVER_BIN names, and asks it for its release", () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-nats-bin-"));
    const bin = join(dir, "nats-server");
    writeFileSync(bin, "#!/bin/sh\necho 'nats-server: v2.99.0'\n");
    chmodSync(bin, 0o755);
    expect(findNatsServerBinary({ ...process.env, NATS_SERVER_BIN: bin })).toBe(bin);
    expect(natsServerVersionText(bin)).toBe("nats-server: v2.99.0");
  });

  it("finds nothing when NATS_SERVER_BIN names a file that does not exist, even with a nats-server on PATH", () => {
    const missing = join(mkdtempSync(join(tmpdir(), "warden-nats-bin-")), "nats-server");
    expect(findNatsServerBinary({ ...process.env, NATS_SERVER_BIN: missing })).toBeUndefined();
  });
});
