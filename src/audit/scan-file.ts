// One file's scan: its name and content as documents, every matcher over each, hits to findings
// (alias tables counted over the whole file). The same on the main thread and in scan workers.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { codeFindings } from "./code-pass.ts";
import type { AuditDocument } from "./document.ts";
import { contentDocuments, fileNameDocument, formatOf } from "./extract.ts";
import { type Finding, findingsFromHits, fingerprint, tableFindings } from "./findings.ts";
import type { FileContent } from "./input.ts";
import type { RuleSet } from "./rules.ts";
import { type Hit, scanDocument } from "./scan.ts";

/** A file to scan: project-relative path, its name inside environment/ (absent for the instruction), content. */
export interface ScanTarget {
  file: string;
  name?: string;
  content: FileContent;
}

/** A target's size in bytes. */
export function sizeOf(target: ScanTarget): number {
  return "bytes" in target.content ? target.content.bytes.byteLength : target.content.size;
}

const PAGE = 65536;

/**
 * One buffer per thread that files are read into (fresh allocations for every file cost more). A
 * WebAssembly memory backs it because its start is page-aligned: the kernel copies into a
 * destination that is not aligned to 64 bytes (as Buffer.allocUnsafe's may be) up to three times
 * slower, and reading the text out of it is faster too (npm run bench audit, (c)).
 */
const memory = new WebAssembly.Memory({ initial: 16 });
let shared = Buffer.from(memory.buffer);

/** A file's bytes in the shared buffer: valid until the next read, so decode them at once. */
function readReusing(file: string): Buffer {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    if (shared.length < size) {
      memory.grow(Math.ceil((size - shared.length) / PAGE));
      shared = Buffer.from(memory.buffer);
    }
    let length = 0;
    while (length < size) {
      const n = readSync(fd, shared, length, size - length, length);
      if (n === 0) break;
      length += n;
    }
    return shared.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

function unreadable(task: string, file: string, message: string): Finding {
  return {
    rule: "unreadable-file",
    severity: "error",
    task,
    file,
    location: {},
    via: [],
    message: `${message}; an unreadable file cannot be shown to be free of leaks`,
    fingerprint: fingerprint(["unreadable-file", file, "unreadable"]),
  };
}

export async function scanFile(task: string, rules: RuleSet, target: ScanTarget): Promise<Finding[]> {
  const { file, name, content } = target;
  const docs: AuditDocument[] = name === undefined ? [] : [fileNameDocument(file, name)];
  const findings: Finding[] = [];
  let bytes: Buffer;
  if ("bytes" in content) {
    bytes = Buffer.from(content.bytes.buffer, content.bytes.byteOffset, content.bytes.byteLength);
  } else {
    try {
      bytes = readReusing(content.path);
      // A spreadsheet is parsed asynchronously: it gets its own copy of the bytes.
      if (formatOf(file, bytes) === "xlsx") bytes = Buffer.from(bytes);
    } catch (err) {
      bytes = Buffer.alloc(0);
      findings.push(
        unreadable(
          task,
          file,
          `cannot read the file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        ),
      );
    }
  }
  if (formatOf(file, bytes) === "binary") {
    findings.push({
      rule: "unreadable-file",
      severity: "warning",
      task,
      file,
      location: {},
      via: [],
      message: "binary content is not audited (only its name is); convert it to a text format or xlsx",
      fingerprint: fingerprint(["unreadable-file", file, "binary"]),
    });
  }
  try {
    const content = await contentDocuments(file, bytes);
    docs.push(...content);
    // An environment file that is code: compared with the artefact's code (code-pass.ts).
    if (name !== undefined && rules.code.blocks.length > 0 && formatOf(file, bytes) === "text")
      findings.push(...codeFindings(task, rules.code, file, name, content[0]!.text));
  } catch (err) {
    findings.push(unreadable(task, file, (err as Error).message));
  }
  const tableHits: Array<{ doc: AuditDocument; hit: Hit }> = [];
  for (const doc of docs) {
    const hits = scanDocument(doc, rules);
    for (const hit of hits) if (rules.items[hit.item]!.rule === "alias-table") tableHits.push({ doc, hit });
    findings.push(...findingsFromHits(task, doc, rules, hits));
  }
  findings.push(...tableFindings(task, file, rules, tableHits));
  return findings;
}
