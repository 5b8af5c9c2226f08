// The leak audit of the task library: every task's audit is clean, and every declared item bites
// (its value, and disguised forms of each task's key constant, added to a copy of the instruction).
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { AuditFile, type AuditItem, auditTaskById } from "../src/audit/index.ts";
import { type ProjectPaths, projectPaths } from "../src/project.ts";
import { tempProject } from "./support/project.ts";

const REPO = projectPaths(path.resolve(import.meta.dirname, ".."));
const TASKS = [
  "airline-booking",
  "bom-costing",
  "clinical-variant",
  "contract-clause",
  "dependency-audit",
  "legal-clause",
  "mortgage-escrow",
  "paper-index",
  "payroll-overtime",
  "supplier-memo",
];

/** Disguised forms of each task's key constants: a sentence and the item it must trip. */
const DISGUISES: Record<string, Array<[string, string]>> = {
  "airline-booking": [
    ["Class K costs sixty-two percent of the Y fare.", "share-k"],
    ["Class L is sold at a 52% discount off the Y fare.", "share-l"],
    ["A Saver change costs 150 per passenger.", "fee-saver"],
    ["Price every segment of a journey in its controlling class.", "controlling-class"],
    ["Round the ticket tax up to a multiple of 0.1.", "tax-step"],
    ["A connection is exempt from the departure charge.", "transit-exempt"],
  ],
  "bom-costing": [
    ["Add twelve percent conversion overhead at each assembly.", "overhead-rate"],
    ["Each assembly costs its components x 1.12.", "overhead-rate"],
    ["Apply an overhead of 12 % per level.", "overhead-rate"],
    [
      "A part three levels deep is carried at 1.404928 of its price in the overhead roll-up.",
      "overhead-rate",
    ],
    ["Report \u22121.00 for an assembly in a cycle.", "cycle-sentinel"],
    ["The overhead compounds\nper assembly level.", "overhead-compounding"],
    ["Round half away from zero.", "rounding-rule"],
  ],
  "clinical-variant": [
    ["BELT3 acts by gain of function.", "mechanism-belt3"],
    ["For ARVN1 the BS1 cut-off is 0.08 percent.", "cutoff-0_0008"],
    ["PM2 applies up to an allele frequency of 5e-5.", "pm2-cutoff"],
    ["An in-silico score of eighty percent or more earns a point.", "insilico-supporting"],
    ["The hotspot of DALM4 spans codons 55 to 81.", "hotspot-dalm4"],
    ["Score start_lost +2 in loss-of-function genes.", "start-lost-points"],
    ["Likely pathogenic needs a total >= 7.", "class-likely-pathogenic"],
    ["Conflicting evidence is never summed away.", "conflict-rule"],
  ],
  "contract-clause": [
    ["Contracts under Delaware law are scaled by 0.95.", "multiplier-delaware"],
    ["English-law contracts carry a 15 % uplift.", "multiplier-england-wales"],
    ["Any other governing law: multiply by one point three.", "multiplier-other-law"],
    ["The high tier starts at forty points of risk score.", "tier-high"],
    ["Cap the Liability: 12 points.", "cap-liability"],
    ["Read `DE` as Delaware; `UK` means England and Wales.", "alias-table-de"],
    ["A term counts at most once\nper clause.", "term-once"],
  ],
  "legal-clause": [
    ["A critical keyword is worth eight points.", "points-critical"],
    ["Clauses under Delaware law are scaled by 0.9.", "multiplier-delaware"],
    ["England and Wales adds a 20 % uplift to every clause.", "multiplier-england-wales"],
    ["The severe band starts at a total of forty.", "band-severe"],
    ["Cap the Liability: 16 points.", "cap-liability"],
    ["Apply the multiplier first, then the cap.", "cap-after-multiplier"],
    ["Count only the highest clause score of each category.", "category-max"],
  ],
  "dependency-audit": [
    ["In a range list, commas separate alternatives.", "comma-alternatives"],
    ["Missing components are zero: 1.2 is read as 1.2.0.", "partial-zero-padding"],
    ["A hyphen range has an exclusive upper bound.", "hyphen-exclusive"],
    ["Pre-releases match by precedence like releases.", "prerelease-precedence"],
    ["An exception never overrides a denied licence.", "deny-before-exception"],
    ["For dev dependencies the licence is not evaluated.", "dev-licence-skipped"],
  ],
  "mortgage-escrow": [
    ["Project taxes with a trend of four percent.", "tax-trend"],
    ["Hazard insurance bills: x 1.075.", "hazard-trend"],
    ["The cushion is 1/12 of the year.", "cushion-fraction"],
    ["Shortages under twenty-five dollars are waived.", "shortage-waiver"],
    ["Spread a large shortage over 24 monthly installments.", "long-spread-phrase"],
    ["Pay the bills first, then the deposit.", "disbursements-first"],
  ],
  "paper-index": [
    ["Normalise by the size of the paper's Weakly Connected Component.", "component-scale"],
    ["Divide by (n-1)(n-2) where n is the component size.", "pair-count"],
  ],
  "supplier-memo": [
    ["Non-US suppliers pay a duty of 4.5 percent on the CIF value.", "duty-rate"],
    ["Add 15 basis points of the price per day of lead time.", "carrying-rate"],
    ["Any supplier with a defect rate of two percent or more is out.", "defect-limit"],
    ["Compare the quotes on their effective landed cost.", "landed-cost"],
  ],
  "payroll-overtime": [
    ["Night shifts earn a premium of one point six dollars an hour.", "night-premium"],
    ["Round punches to the nearest tenth of an hour.", "punch-rounding"],
    ["Deduct a thirty minute meal break.", "meal-deduction"],
    ["A night shift starts at 20:00 and ends at 04:00.", "night-window"],
    ["Double time starts after twelve hours of a shift.", "doubletime-threshold"],
  ],
};

/** A sentence that states the item in the plainest form its matcher is meant to catch. */
function plainStatement(item: AuditItem): string {
  const keyword = (item.context as string[])[0] ?? "";
  switch (item.kind) {
    case "number":
      return `The ${keyword} is ${item.value}.`;
    case "string":
      return `The ${keyword} rule: ${item.values[0]}.`;
    case "table":
      return `Mapping: ${item.values.join(", ")}.`;
    case "phrase":
      return `Rule (${keyword}): ${item.text}.`;
  }
}

/** The items of a library audit file, each named context set replaced by its keywords. */
function auditItems(id: string): AuditItem[] {
  const file = AuditFile.parse(JSON.parse(readFileSync(path.join(REPO.audits, `${id}.json`), "utf8")));
  return file.items.map((item) =>
    typeof item.context === "string" ? { ...item, context: file.contextSets[item.context]! } : item,
  );
}

/** A temporary project holding copies of the library's tasks, artefacts and audit files. */
function copyLibrary(): ProjectPaths {
  const paths = tempProject("file");
  mkdirSync(paths.audits, { recursive: true });
  for (const id of TASKS) {
    cpSync(path.join(REPO.tasks, id), path.join(paths.tasks, id), { recursive: true });
    cpSync(path.join(REPO.artefacts, id), path.join(paths.artefacts, id), { recursive: true });
    cpSync(path.join(REPO.audits, `${id}.json`), path.join(paths.audits, `${id}.json`));
  }
  return paths;
}

describe("the task library's leak audit", () => {
  let copy: ProjectPaths;
  beforeAll(() => {
    copy = copyLibrary();
  });

  /** Audits the copy of a task with `extra` appended to its instruction; the errors by item. */
  async function errorsWith(id: string, extra: string): Promise<Set<string | undefined>> {
    const file = path.join(copy.tasks, id, "instruction.md");
    const original = readFileSync(path.join(REPO.tasks, id, "instruction.md"), "utf8");
    writeFileSync(file, `${original}\n${extra}\n`);
    try {
      const { findings } = await auditTaskById(copy, id);
      return new Set(findings.filter((f) => f.severity === "error" && !f.suppressed).map((f) => f.item));
    } finally {
      writeFileSync(file, original);
    }
  }

  for (const id of TASKS) {
    describe(id, () => {
      it("is clean: no error, no unsuppressed warning, every allowlist entry used", async () => {
        const result = await auditTaskById(REPO, id);
        expect(result.problems).toEqual([]);
        expect(result.findings.filter((f) => !f.suppressed)).toEqual([]);
        expect(result.status).toBe("clean");
        expect(auditItems(id).length).toBeGreaterThan(0);
      });

      it("flags every declared item stated plainly in the instruction", async () => {
        const missed: string[] = [];
        for (const item of auditItems(id)) {
          const errors = await errorsWith(id, plainStatement(item));
          if (!errors.has(item.id)) missed.push(item.id);
        }
        expect(missed).toEqual([]);
      });

      it.each(DISGUISES[id]!)("flags a disguised form: %s", async (sentence, item) => {
        expect(auditItems(id).some((i) => i.id === item)).toBe(true);
        expect(await errorsWith(id, sentence)).toContain(item);
      });

      it("leaves the unchanged instruction of the copy clean", async () => {
        expect(await errorsWith(id, "")).toEqual(new Set());
      });
    });
  }
});
