// Progress of a calibration on stderr: a live block redrawn in place on a TTY (per task, each
// cell's done/planned and passes; totals with tokens, cost and ETA), one quiet line per finished
// trial otherwise (CI, pipes).
import type { Writable } from "node:stream";
import { type Colours, coloursFor } from "../colours.ts";
import { type Outcome, type TrialRecord, trialCostUsd } from "../record/index.ts";
import { budgetTokens } from "../report/index.ts";
import type { Plan } from "./plan.ts";
import { plumbingLabel } from "./plumbing.ts";
import type { CellJob, SchedulerOptions } from "./scheduler.ts";
import type { Tally } from "./tally.ts";

export interface ProgressOptions {
  stream: Writable & { isTTY?: boolean; rows?: number };
  /** Live redraw; defaults to the stream being a TTY and CI not being set. */
  live?: boolean;
  /** Milliseconds between redraws. */
  intervalMs?: number;
  now?: () => number;
  /**
   * Every record of the run so far, all attempts (resume): the totals count what was spent, as the
   * report's cost line does. Default: the latest attempt of each trial in the tally.
   */
  records?: readonly TrialRecord[];
  /** Each finished attempt's record, handed on (the library's `onTrial`). */
  onTrial?: (record: TrialRecord) => void;
}

interface CellProgress {
  task: string;
  label: string;
  pass: number;
  fail: number;
  infra: number;
  running: number;
}

export function formatTokens(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

export class Progress implements NonNullable<SchedulerOptions["events"]> {
  private readonly cells = new Map<string, CellProgress>();
  private readonly live: boolean;
  private readonly colors: Colours;
  private readonly now: () => number;
  private readonly startedAt: number;
  private doneSession = 0;
  private doneBefore = 0;
  /** Trials left: set by the scheduler (planned), one less as each trial ends without a retry. */
  private remaining = 0;
  /** Whether the scheduler has said how many trials are left yet (its first count moves nothing). */
  private counted = false;
  /** Why the count of trials last moved (`+2: sequential screening added trials`), once it has. */
  private moved = "";
  /** A trial line not yet written since the count moved: it says why. */
  private movedUnsaid = false;
  /** Tasks curtailed since the scheduler last counted. */
  private curtailedSince = 0;
  private tokens = 0;
  private cost = 0;
  /** Attempts whose cost is unknown: their configuration has no pricing. */
  private unpriced = 0;
  private drawnLines = 0;
  private timer: NodeJS.Timeout | null = null;
  private dirty = false;
  /** `plumbing check (oracle, not a model) · ` before the totals of a run of scripted agents. */
  private readonly plumbing: string;

  constructor(
    private readonly plan: Plan,
    tally: Tally,
    private readonly options: ProgressOptions,
  ) {
    this.live = options.live ?? (Boolean(options.stream.isTTY) && !process.env.CI);
    this.colors = coloursFor(options.stream);
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    this.plumbing = plumbingLabel(plan);
    for (const t of tally.cells.values()) {
      // Trials that ended in an infrastructure error run again, so they count as not done yet.
      this.cells.set(t.cell.key, {
        task: t.cell.task,
        label: t.cell.label,
        pass: t.passes,
        fail: t.fails,
        infra: 0,
        running: 0,
      });
      this.doneBefore += t.runs + t.unverified;
      if (!options.records) for (const record of t.slots.values()) this.spent(record);
    }
    // A resumed session shows the run's totals: what earlier sessions spent, every attempt, counts too.
    const left = new Set([...tally.strays, ...tally.mismatched]);
    for (const record of options.records ?? []) if (!left.has(record)) this.spent(record);
    // without a live block, the one line before the trials' says what the run is
    if (!this.live && this.plumbing) options.stream.write(`${this.plumbing}calibrating ${plan.runId}\n`);
    if (this.live) this.timer = setInterval(() => this.flush(), options.intervalMs ?? 100);
    this.timer?.unref();
  }

  private cell(job: CellJob): CellProgress {
    return this.cells.get(job.cell.key)!;
  }

  started(job: CellJob): void {
    this.cell(job).running += 1;
    this.dirty = true;
  }

  planned(remaining: number): void {
    const delta = remaining - this.remaining;
    if (this.counted && delta !== 0) {
      this.moved = `${delta > 0 ? "+" : ""}${delta}: ${this.whyMoved(delta)}`;
      this.movedUnsaid = true;
    }
    this.counted = true;
    this.curtailedSince = 0;
    this.remaining = remaining;
    this.dirty = true;
  }

  curtailed(): void {
    this.curtailedSince += 1;
  }

  /**
   * Why the trials left moved other than by a trial ending (a retried attempt moves nothing: its trial
   * is still left): sequential screening adds trials to an undecided cell; curtailment drops a settled
   * task's; the cost ceiling, or an attempt given up, drops others.
   */
  private whyMoved(delta: number): string {
    if (delta > 0) return "sequential screening added trials";
    if (this.curtailedSince > 0) return "curtailed (no outcome of the rest changes a decision)";
    return "given up in this session (the cost ceiling, or attempts that ended in errors)";
  }

  finished(job: CellJob, record: TrialRecord, outcome: Outcome, retrying: boolean): void {
    const c = this.cell(job);
    c.running -= 1;
    if (outcome === "pass") c.pass += 1;
    else if (outcome === "fail") c.fail += 1;
    else if (outcome === "infra" && !retrying) c.infra += 1;
    if (!retrying) {
      this.doneSession += 1;
      this.remaining = Math.max(0, this.remaining - 1);
    }
    this.spent(record);
    this.dirty = true;
    if (!this.live) this.line(job, record, outcome, retrying);
    this.options.onTrial?.(record);
  }

  /** Tokens as the budget counts them (cache reads and writes included) and cost. */
  private spent(record: TrialRecord): void {
    this.tokens += budgetTokens(record.usage);
    const cost = trialCostUsd(record);
    if (cost === null) this.unpriced += 1;
    else this.cost += cost;
  }

  /** A message above the live block (or a plain line). */
  note(text: string): void {
    this.clear();
    this.options.stream.write(`${text}\n`);
    this.dirty = true;
  }

  private eta(): string {
    if (this.doneSession === 0 || this.remaining === 0) return "";
    const per = (this.now() - this.startedAt) / this.doneSession;
    return ` · eta ${this.upTo()}${formatDuration(per * this.remaining)}`;
  }

  /** Under curtailment the trials left are an upper bound while any are left: "≤". */
  private upTo(): string {
    return this.plan.curtail && this.remaining > 0 ? "≤" : "";
  }

  /** `$0.42`, and how many attempts it leaves out: `$0.42 (+3 unpriced: no pricing in their configuration)`. */
  private money(): string {
    const unpriced =
      this.unpriced > 0 ? ` (+${this.unpriced} unpriced: no pricing in their configuration)` : "";
    return `$${this.cost.toFixed(2)}${unpriced}`;
  }

  /** `7/≤21`: done and done + left. */
  private count(): string {
    const done = this.doneBefore + this.doneSession;
    return `${done}/${this.upTo()}${done + this.remaining}`;
  }

  private totals(): string {
    const all = [...this.cells.values()];
    const sum = (k: "pass" | "fail" | "infra" | "running") => all.reduce((s, c) => s + c[k], 0);
    const c = this.colors;
    const moved = this.moved && this.remaining > 0 ? ` (${this.moved})` : "";
    return (
      `${this.plumbing}trials ${this.count()}${moved} · ${c.green(`pass ${sum("pass")}`)} · ${c.red(`fail ${sum("fail")}`)}` +
      ` · ${c.yellow(`infra ${sum("infra")}`)} · running ${sum("running")} · spent ${formatTokens(this.tokens)} tokens` +
      ` · ${this.money()}${this.eta()}`
    );
  }

  private line(job: CellJob, record: TrialRecord, outcome: Outcome, retrying: boolean): void {
    const c = this.colors;
    const colour = outcome === "pass" ? c.green : outcome === "fail" ? c.red : c.yellow;
    const error = record.error ? ` (${record.error.kind}: ${record.error.message.split("\n")[0]})` : "";
    const usd = trialCostUsd(record);
    const cost = usd === null ? "" : ` · $${usd.toFixed(3)}`;
    const took = formatDuration(Date.parse(record.finishedAt) - Date.parse(record.startedAt));
    const moved = this.movedUnsaid ? ` (${this.moved})` : "";
    this.movedUnsaid = false;
    this.options.stream.write(
      `[${this.count()}]${moved} ${job.cell.task} ${job.cell.label} #${job.index}` +
        ` ${colour(outcome)}${error}${retrying ? " retrying" : ""}` +
        ` · ${formatTokens(budgetTokens(record.usage))} tok${cost} · ${took}${this.eta()}\n`,
    );
  }

  private block(): string[] {
    const lines = [
      `${this.plumbing}${this.colors.bold("calibrating")} ${this.plan.runId} (${this.plan.mode})`,
    ];
    const rows = this.options.stream.rows ?? 40;
    if (this.plan.tasks.length + 2 <= rows - 2) {
      const width = Math.max(...this.plan.tasks.map((t) => t.id.length));
      for (const task of this.plan.tasks) {
        const parts = [...this.cells.values()]
          .filter((c) => c.task === task.id)
          .map((c) => {
            const run = c.running > 0 ? this.colors.cyan(`+${c.running}`) : "";
            const infra = c.infra > 0 ? this.colors.yellow(` !${c.infra}`) : "";
            return `${c.label} ${this.colors.green(String(c.pass))}/${c.pass + c.fail}${infra}${run}`;
          });
        lines.push(`  ${task.id.padEnd(width)}  ${parts.join("   ")}`);
      }
    }
    lines.push(this.totals());
    return lines;
  }

  private clear(): void {
    if (!this.live || this.drawnLines === 0) return;
    this.options.stream.write(`\x1b[${this.drawnLines}F\x1b[J`);
    this.drawnLines = 0;
  }

  private flush(): void {
    if (!this.dirty) return;
    this.dirty = false;
    this.clear();
    const lines = this.block();
    this.options.stream.write(`${lines.join("\n")}\n`);
    this.drawnLines = lines.length;
  }

  /** Draws the final state and stops redrawing. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.live) {
      this.dirty = true;
      this.flush();
    } else {
      this.options.stream.write(`${this.totals()}\n`);
    }
  }
}
