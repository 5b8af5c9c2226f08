// Hostile archives from a container: a truncated or swapped tar stream is a failed read, never an
// uncaught exception; the entry's own name and type are checked (red-team items 1 and 6).
import { PassThrough } from "node:stream";
import tar from "tar-stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSingleEntry } from "../src/sandbox/archive.ts";
import type { TrialSandbox } from "../src/sandbox/index.ts";
import { LABEL_RUN, SandboxFileError } from "../src/sandbox/index.ts";
import { providerSandbox } from "./support/engine.ts";
import { redteamFixture } from "./support/redteam.ts";
import { sandboxImage } from "./support/sandbox.ts";

/** A tar of one file, as bytes. */
async function tarOf(name: string, bytes: Buffer): Promise<Buffer> {
  const pack = tar.pack();
  pack.entry({ name }, bytes);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function streamOf(bytes: Buffer, error?: Error): PassThrough {
  const s = new PassThrough();
  s.write(bytes);
  if (error) setImmediate(() => s.destroy(error));
  else s.end();
  return s;
}

describe("readSingleEntry on a broken stream", () => {
  it("turns a tar cut inside the entry into an unreadable entry", async () => {
    const whole = await tarOf("result.csv", Buffer.alloc(4000, 65));
    // 512 header bytes + 1000 of the 4000 content bytes: the entry ends early.
    const entry = await readSingleEntry(streamOf(whole.subarray(0, 512 + 1000)), 1 << 20, "result.csv");
    expect(entry.kind).toBe("unreadable");
  });

  it("turns an error of the source stream mid-entry into an unreadable entry", async () => {
    const whole = await tarOf("result.csv", Buffer.alloc(4000, 65));
    const entry = await readSingleEntry(
      streamOf(whole.subarray(0, 1024), new Error("socket hang up")),
      1 << 20,
      "result.csv",
    );
    expect(entry).toEqual({ kind: "unreadable", reason: "socket hang up" });
  });

  it("refuses an entry whose name is not the one asked for", async () => {
    const whole = await tarOf("shadow", Buffer.from("root:x"));
    const entry = await readSingleEntry(streamOf(whole), 1 << 20, "result.csv");
    expect(entry).toEqual({ kind: "other", type: 'an archive entry named "shadow"' });
  });
});

const RUN = `test-hostile-archive-${process.pid}`;
let box: TrialSandbox;
beforeAll(async () => {
  box = await providerSandbox({
    image: sandboxImage(),
    limits: { cpus: 0.5, memoryMb: 256, pids: 64 },
    labels: { kgate: "1", [LABEL_RUN]: RUN },
  });
});
afterAll(async () => {
  await box?.remove();
});

describe("folders swapped during copy-out (the red team's crash.sh, still running)", () => {
  it("every read is a file of the container or a failed read; kgate never throws anything else", async () => {
    const script = redteamFixture("crash.sh");
    const started = await box.exec(["bash", "-c", script], { timeoutSec: 30 });
    expect(started.exitCode).toBe(0);
    const small = "item,value\nwidget,3.36\ngadget,5.60\n";
    const big = ["item,value", ...Array.from({ length: 20000 }, (_, i) => `w${i},${i}`), ""].join("\n");
    const outcomes = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const read = await box.readFile("output/result.csv").then(
        (bytes) => bytes.toString("utf8"),
        (err: unknown) => err,
      );
      if (typeof read === "string") {
        // Docker may take the header of one file and the bytes of the other: still only the
        // container's own bytes, a prefix of one of the two files the agent wrote.
        expect(small.startsWith(read) || big.startsWith(read)).toBe(true);
        outcomes.add("file");
      } else {
        expect(read).toBeInstanceOf(SandboxFileError);
        outcomes.add((read as SandboxFileError).reason);
      }
      const [out] = await box.collectOutputs([{ path: "output/result.csv", maxBytes: 1 << 20 }]);
      expect(["collected", "rejected", "missing"]).toContain(out!.record.status);
    }
    // The swap must have bitten at least once, or the test proved nothing.
    expect([...outcomes].some((o) => o !== "file")).toBe(true);
  });
});
