import { gzipSync } from "node:zlib";
import { Function as GoFunction, Line, Location, Profile, Sample, StringTable, ValueType } from "pprof-format";
import { describe, expect, it } from "vitest";
import { goPackageOf, goProfileTop } from "./go-profile-top.js";

/** A Go CPU profile as nats-server's profiler writes it: stacks leaf first, values [samples, cpu ns]. */
function profileOf(stacks: readonly { readonly fns: readonly string[]; readonly ms: number }[]): Uint8Array {
  const strings = new StringTable();
  const names = [...new Set(stacks.flatMap((s) => s.fns))];
  const fn = names.map((name, i) => new GoFunction({ id: i + 1, name: strings.dedup(name) }));
  const location = names.map((_, i) => new Location({ id: i + 1, line: [new Line({ functionId: i + 1 })] }));
  const sample = stacks.map((s) => new Sample({ locationId: s.fns.map((f) => names.indexOf(f) + 1), value: [s.ms / 10, s.ms * 1e6] }));
  const sampleType = [new ValueType({ type: strings.dedup("samples"), unit: strings.dedup("count") }), new ValueType({ type: strings.dedup("cpu"), unit: strings.dedup("nanoseconds") })];
  return gzipSync(new Profile({ sampleType, sample, location, function: fn, stringTable: strings, durationNanos: 15e9 }).encode());
}

describe("nats-server's CPU profile", () => {
  it("gives each function its self and cumulative share of the CPU, and each package its self share", () => {
    const store = "github.com/nats-io/nats-server/v2/server.(*fileStore).StoreMsg";
    const loop = "github.com/nats-io/nats-server/server.(*stream).internalLoop";
    const top = goProfileTop(
      profileOf([
        { fns: ["internal/runtime/syscall/linux.Syscall6", store, loop], ms: 30 },
        { fns: ["runtime.memmove", store, loop], ms: 50 },
        { fns: [store, loop], ms: 20 },
      ]),
      5,
    );
    expect(top.busyMs).toBe(100);
    expect(top.seconds).toBe(15);
    expect(top.frames.map((f) => [f.name, Math.round(f.selfPercent)])).toEqual([
      ["runtime.memmove", 50],
      ["internal/runtime/syscall/linux.Syscall6", 30],
      ["server.(*fileStore).StoreMsg", 20],
    ]);
    // the server's own functions only, by everything below them
    expect(top.cumulative.map((f) => [f.name, Math.round(f.selfPercent)])).toEqual([
      ["server.(*fileStore).StoreMsg", 100],
      ["server.(*stream).internalLoop", 100],
    ]);
    expect(top.packages.map((p) => p.name)).toEqual(["runtime", "internal/runtime/syscall/linux", "server"]);
  });

  it("names a function's package by its import path, with or without the module's /v2", () => {
    expect(goPackageOf("github.com/nats-io/nats-server/v2/server.(*client).parse")).toBe("server");
    expect(goPackageOf("github.com/nats-io/nats-server/server/stree.(*SubjectTree[...]).Find")).toBe("server/stree");
    expect(goPackageOf('github.com/nats-io/nats-server/server/stree.(*SubjectTree[go.shape.struct { github.com/nats-io/nats-server/server.x bool }]).Find')).toBe("server/stree");
    expect(goPackageOf("runtime.mallocgc")).toBe("runtime");
    const generic = "github.com/nats-io/nats-server/server/stree.(*SubjectTree[go.shape.struct { github.com/nats-io/nats-server/server.x bool }]).Find";
    const top = goProfileTop(profileOf([{ fns: [generic], ms: 10 }]), 1);
    expect(top.frames[0]?.name).toBe("server/stree.(*SubjectTree[…]).Find");
    expect(goPackageOf("github.com/klauspost/compress/s2.Encode")).toBe("klauspost/compress/s2");
  });
});
