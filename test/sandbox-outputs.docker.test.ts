// Copying declared outputs out: only regular files inside the work directory, under the size cap;
// every refusal carries a reason.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DockerSandbox } from "../src/sandbox/docker/container.ts";
import type { OutputFile } from "../src/sandbox/index.ts";
import { collectOutputs } from "../src/sandbox/outputs.ts";
import { sha256 } from "../src/task/index.ts";
import { sandboxImage } from "./support/sandbox.ts";

let box: DockerSandbox;
let results: Map<string, OutputFile>;
const MAX = 64 * 1024;

beforeAll(async () => {
  box = await DockerSandbox.create({
    image: sandboxImage(),
    limits: { cpus: 1, memoryMb: 256, pids: 64 },
    labels: { kgate: "1", "kgate.run": `test-outputs-${process.pid}` },
  });
  const setup = await box.exec([
    "bash",
    "-c",
    [
      "set -e",
      "mkdir -p out",
      "printf 'item,value\\nwidget,3.36\\n' > out/good.csv",
      "ln -s /etc/passwd out/passwd.csv",
      "ln -s ../../.bashrc out/home.csv",
      "ln -s /etc linked",
      "truncate -s 1G out/huge.csv",
      "mkdir out/folder.csv",
      "mkfifo out/pipe.csv",
    ].join("; "),
  ]);
  expect(setup.exitCode, setup.stderr).toBe(0);
  await box.stop();
  const declared = [
    "out/good.csv",
    "out/passwd.csv",
    "out/home.csv",
    "linked/passwd",
    "out/huge.csv",
    "out/folder.csv",
    "out/pipe.csv",
    "out/missing.csv",
    "nowhere/x.csv",
    "out/../../../etc/passwd",
    "/etc/passwd",
  ];
  const collected = await collectOutputs(
    box,
    declared.map((path) => ({ path, maxBytes: MAX })),
  );
  results = new Map(collected.map((r) => [r.record.path, r]));
}, 60_000);

afterAll(async () => {
  await box?.remove();
});

const reasonOf = (p: string) => results.get(p)?.record.reason ?? "";
const statusOf = (p: string) => results.get(p)?.record.status;

describe("collecting declared outputs from a stopped sandbox", () => {
  it("collects a regular file with its size and sha256, bytes intact", () => {
    const good = results.get("out/good.csv");
    const bytes = Buffer.from("item,value\nwidget,3.36\n");
    expect(good?.record).toEqual({
      path: "out/good.csv",
      status: "collected",
      size: bytes.length,
      sha256: sha256(bytes),
    });
    expect(good?.bytes).toEqual(bytes);
  });

  it("rejects a symlink to /etc/passwd, naming the target", () => {
    expect(statusOf("out/passwd.csv")).toBe("rejected");
    expect(reasonOf("out/passwd.csv")).toMatch(/symbolic link to \/etc\/passwd outside the work directory/);
    expect(results.get("out/passwd.csv")?.bytes).toBeUndefined();
  });

  it("rejects a relative symlink that climbs out of the work directory", () => {
    expect(statusOf("out/home.csv")).toBe("rejected");
    expect(reasonOf("out/home.csv")).toMatch(
      /symbolic link to \/home\/agent\/\.bashrc outside the work directory/,
    );
  });

  it("rejects a path whose parent folder is a symlink", () => {
    expect(statusOf("linked/passwd")).toBe("rejected");
    expect(reasonOf("linked/passwd")).toMatch(/folder linked is a symbolic link to \/etc/);
  });

  it("rejects a 1 GiB file by its size without transferring it", () => {
    expect(statusOf("out/huge.csv")).toBe("rejected");
    expect(reasonOf("out/huge.csv")).toBe(
      `out/huge.csv is 1073741824 bytes, over the cap of ${MAX} bytes (outputs[].maxBytes)`,
    );
  });

  it("rejects paths with '..' and absolute paths before touching the sandbox", () => {
    expect(statusOf("out/../../../etc/passwd")).toBe("rejected");
    expect(reasonOf("out/../../../etc/passwd")).toMatch(/path traversal: .* contains a "\.\." segment/);
    expect(reasonOf("/etc/passwd")).toMatch(/path traversal: .* is absolute/);
  });

  it("rejects folders and other non-regular files", () => {
    expect(reasonOf("out/folder.csv")).toBe("out/folder.csv is a folder, not a file");
    expect(reasonOf("out/pipe.csv")).toBe("out/pipe.csv is not a regular file");
  });

  it("reports missing files and missing folders as missing, with a reason", () => {
    expect(results.get("out/missing.csv")?.record).toEqual({
      path: "out/missing.csv",
      status: "missing",
      reason: "the file was not written",
    });
    expect(results.get("nowhere/x.csv")?.record.reason).toBe("folder nowhere/ does not exist");
  });
});
