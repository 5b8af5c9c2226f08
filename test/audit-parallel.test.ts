// Scan workers that fail: node:worker_threads is replaced by workers that take files from the
// shared queue and then fail (an error, or an exit), and the main thread still scans every file,
// the ones the failed workers took included, with the findings one thread gives.
import { EventEmitter } from "node:events";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { scanFiles, type WorkerData } from "../src/audit/parallel.ts";
import { compileRules } from "../src/audit/rules.ts";
import type { ScanTarget } from "../src/audit/scan-file.ts";
import { AuditFile } from "../src/audit/schema.ts";
import { CORPUS_ARTEFACT_PATH, corpusFile } from "./support/audit-task.ts";
import { tempDir } from "./support/project.ts";

/** How the fake workers end: after taking their first file and one more from the queue. */
const failure = vi.hoisted(() => ({ how: "error" as "error" | "exit", workers: 0 }));

vi.mock("node:worker_threads", () => ({
  Worker: class extends EventEmitter {
    constructor(_entry: URL, options: { workerData: WorkerData }) {
      super();
      failure.workers++;
      const counter = new Int32Array(options.workerData.queue);
      Atomics.add(counter, 0, 1);
      setTimeout(() => {
        if (failure.how === "error") this.emit("error", new Error("worker crashed"));
        this.emit("exit", 1);
      }, 5);
    }
    terminate(): Promise<number> {
      return Promise.resolve(1);
    }
  },
}));

const audit = AuditFile.parse(JSON.parse(corpusFile("audit.json")));
const job = {
  task: "t",
  audit,
  artefact: {
    file: "artefacts/corpus/artefact.md",
    placedAt: CORPUS_ARTEFACT_PATH,
    text: corpusFile("artefact.md"),
  },
};
const rules = compileRules(job.audit, job.artefact);

/** Six files, two of them leaking, on disk. */
function targets(): ScanTarget[] {
  const dir = tempDir("kgate-parallel-");
  return Array.from({ length: 6 }, (_, i) => {
    const name = `part-${i}.md`;
    const text = `${"Filler words for a file. ".repeat(200 + i * 10)}\n${i % 3 === 0 ? "The ZERO_FILL rule applies.\n" : ""}`;
    writeFileSync(path.join(dir, name), text);
    return {
      file: `tasks/t/environment/${name}`,
      name,
      content: { path: path.join(dir, name), size: text.length },
    };
  });
}

afterEach(() => {
  delete process.env.KGATE_AUDIT_THREADS;
  delete process.env.KGATE_AUDIT_PARALLEL_BYTES;
  failure.workers = 0;
});

describe("scan workers that fail", () => {
  it.each(["error", "exit"] as const)("leave their files to the main thread (%s)", async (how) => {
    const files = targets();
    process.env.KGATE_AUDIT_THREADS = "1";
    const alone = await scanFiles(job, rules, files);
    expect(alone.threads).toBe(1);
    expect(alone.findings.flat().filter((f) => f.rule === "gated-string")).toHaveLength(2);

    failure.how = how;
    process.env.KGATE_AUDIT_THREADS = "3";
    process.env.KGATE_AUDIT_PARALLEL_BYTES = "0";
    const withFailures = await scanFiles(job, rules, files);
    expect(failure.workers).toBe(2);
    expect(withFailures.threads).toBe(1);
    expect(withFailures.findings).toEqual(alone.findings);
  });
});
