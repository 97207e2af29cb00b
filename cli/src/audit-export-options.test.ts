import { describe, expect, it } from "vitest";
import type { CommandIo } from "./io.js";
import { runCli } from "./run-cli.js";

/** `warden audit export` with options that say where nothing can go: refused before any bus is asked. */
async function auditExport(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const io: CommandIo = {
    // no home and no server: every refusal here comes first
    env: { WARDEN_HOME: "/nonexistent/warden-home", ...env },
    cwd: "/tmp",
    out: () => undefined,
    err: (t) => err.push(t),
    stopSignal: () => new Promise(() => undefined),
  };
  const code = await runCli(["audit", "export", ...args], io);
  return { code, err: err.join("\n") };
}

describe("audit export: where the export goes", () => {
  it("needs --out for the evidence, and --otlp for --endpoint", async () => {
    expect(await auditExport({})).toEqual({ code: 1, err: "warden: audit export needs --out FILE (or --otlp, to export spans)" });
    expect(await auditExport({}, "--endpoint", "http://collector:4318")).toEqual({ code: 1, err: expect.stringMatching(/^warden: --endpoint is where --otlp posts spans/) });
  });

  it("with --otlp: one of --endpoint, --out or OTEL_EXPORTER_OTLP_ENDPOINT, each checked", async () => {
    expect(await auditExport({}, "--otlp")).toEqual({ code: 1, err: "warden: --otlp needs --endpoint URL, --out FILE, or OTEL_EXPORTER_OTLP_ENDPOINT set" });
    expect(await auditExport({}, "--otlp", "--endpoint", "http://c:4318", "--out", "x.json")).toEqual({ code: 1, err: "warden: --otlp takes --endpoint URL or --out FILE, not both" });
    for (const bad of ["collector:4318", "grpc://collector:4317", "not a url"]) {
      expect(await auditExport({}, "--otlp", "--endpoint", bad)).toEqual({ code: 1, err: expect.stringMatching(new RegExp(`^warden: --endpoint ${JSON.stringify(bad)} is not an http\\(s\\) URL`)) });
    }
    expect(await auditExport({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, "--otlp")).toEqual({ code: 1, err: expect.stringMatching(/^warden: invalid environment variable OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318"/) });
    expect(await auditExport({}, "--otlp", "--since", "yesterday", "--endpoint", "http://c:4318")).toEqual({ code: 1, err: expect.stringMatching(/^warden: --since "yesterday" is neither a time/) });
  });
});
