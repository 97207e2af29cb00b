import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/harness.js";
import { confinedPaths, confinePath, confinePathArgs } from "./confine-paths.js";

describe("confinePath (a real file system)", () => {
  const work = realpathSync(tempDir("paths"));
  const root = join(work, "root");
  mkdirSync(join(root, "sub"), { recursive: true });
  mkdirSync(join(work, "outside"));
  writeFileSync(join(root, "sub", "a.txt"), "a");
  writeFileSync(join(work, "outside", "secret.txt"), "s");
  symlinkSync(join(work, "outside", "secret.txt"), join(root, "link-out"));
  symlinkSync(join(work, "outside"), join(root, "dir-out"));
  symlinkSync(join(root, "sub", "a.txt"), join(root, "link-in"));
  symlinkSync(join(work, "outside", "new.txt"), join(root, "dangling"));
  const roots = [root];

  it("refuses /etc/passwd and a relative path that climbs out", () => {
    expect(confinePath("file", "/etc/passwd", root, roots)).toMatchObject({
      ok: false,
      error: { code: "INVALID_ARGS", message: `file: /etc/passwd is outside the tool's roots (${root}); refused before running` },
    });
    expect(confinePath("file", "../sub/a.txt", join(root, "sub"), roots)).toEqual({ ok: true, value: join(root, "sub", "a.txt") });
    expect(confinePath("file", "../../outside/secret.txt", join(root, "sub"), roots)).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
  });

  it("refuses a symlink inside the roots that points outside, to a file or through a folder", () => {
    expect(confinePath("file", "link-out", root, roots)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/really .*outside\/secret\.txt\) is outside the tool's roots/) } });
    expect(confinePath("file", "dir-out/secret.txt", root, roots)).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
    expect(confinePath("file", "dir-out/not-yet.txt", root, roots)).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
  });

  it("refuses a symlink whose target does not exist, since writing to it would create the target", () => {
    expect(confinePath("file", "dangling", root, roots)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/symbolic link to a path that does not exist/) } });
  });

  it("gives the real path of a file inside, also through a link that stays inside, and of a new file in an existing folder", () => {
    expect(confinePath("file", "sub/a.txt", root, roots)).toEqual({ ok: true, value: join(root, "sub", "a.txt") });
    expect(confinePath("file", "link-in", root, roots)).toEqual({ ok: true, value: join(root, "sub", "a.txt") });
    expect(confinePath("file", "sub/new.txt", root, roots)).toEqual({ ok: true, value: join(root, "sub", "new.txt") });
    expect(confinePath("file", "missing/new.txt", root, roots)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/nor its folder exists/) } });
  });

  it("replaces path args and each item of a path list, and leaves other args alone", () => {
    const r = confinePathArgs({ file: "sub/a.txt", files: ["link-in", "sub"], n: "x" }, { single: ["file"], lists: ["files"] }, root, roots);
    expect(r).toEqual({ ok: true, value: { file: join(root, "sub", "a.txt"), files: [join(root, "sub", "a.txt"), join(root, "sub")], n: "x" } });
    expect(confinePathArgs({ files: ["sub", "/etc/passwd"] }, { single: [], lists: ["files"] }, root, roots)).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/^files\[1\]: \/etc\/passwd is outside/) },
    });
  });

  it("lists the confined real paths of path args, the ones a call's effects report", () => {
    const paths = { single: ["file"], lists: ["files"] };
    const r = confinePathArgs({ file: "link-in", files: ["sub"], n: "x" }, paths, root, roots);
    if (!r.ok) throw new Error(r.error.message);
    expect(confinedPaths(r.value, paths)).toEqual([join(root, "sub", "a.txt"), join(root, "sub")]);
    expect(confinedPaths({ n: "x" }, paths)).toEqual([]);
  });
});
