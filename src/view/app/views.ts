// The viewer's parts as Preact components (htm templates, no build-time JSX): the trial table with
// its filters and the runs compared per configuration (a trial's detail: detail.ts; a task's cells
// side by side: side-by-side.ts).
import { html } from "htm/preact";
import type { ViewIndex, ViewTrial } from "../schema.ts";
import { choices, FILTERS, type FilterName, type Filters, type Sort, type SortKey } from "./filter.ts";

export { html };

const LABELS: Record<FilterName, string> = {
  run: "run",
  task: "task",
  cell: "cell",
  configuration: "configuration",
  condition: "condition",
  outcome: "verdict",
  attribution: "attribution",
};

/** A pass in a -A or control cell is a problem, never good news. */
export function outcomeClass(t: Pick<ViewTrial, "outcome" | "mustFail">): string {
  return t.outcome === "pass" && t.mustFail ? "outcome pass unwanted" : `outcome ${t.outcome}`;
}

/** The outcome in words: a pass where the cell must fail says so, so it never reads as a success. */
export function outcomeText(t: Pick<ViewTrial, "outcome" | "mustFail">): string {
  return t.outcome === "pass" && t.mustFail ? "⚠ pass (must fail)" : t.outcome;
}

/** "perturbed-convention:perturbed" may break after its colon in a narrow column. */
function breakable(text: string | null): string {
  return (text ?? "").replace(":", ":\u200b");
}

export function FilterBar(props: {
  trials: ViewTrial[];
  filters: Filters;
  onChange: (name: FilterName, value: string) => void;
  showRetried: boolean;
  onShowRetried: (on: boolean) => void;
}) {
  return html`<form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
    ${FILTERS.map(
      (name) => html`<label>${LABELS[name]}
        <select id=${`filter-${name}`} value=${props.filters[name] ?? ""}
          onChange=${(e: Event) => props.onChange(name, (e.target as HTMLSelectElement).value)}>
          <option value="">all</option>
          ${choices(props.trials, name).map((v) => html`<option value=${v}>${v}</option>`)}
        </select></label>`,
    )}
    <label><input type="checkbox" id="show-retried" checked=${props.showRetried}
      onChange=${(e: Event) => props.onShowRetried((e.target as HTMLInputElement).checked)}/> retried attempts</label>
  </form>`;
}

const COLUMNS: [SortKey, string][] = [
  ["run", "run"],
  ["task", "task"],
  ["cell", "cell"],
  ["configuration", "configuration"],
  ["index", "#"],
  ["outcome", "verdict"],
  ["attribution", "attribution"],
  ["tokens", "tokens"],
  ["durationMs", "time"],
];

/**
 * The trial table. With one run its run column is left out (the header names the run); with a
 * trial open beside it the text columns wrap, so the numbers and the stop column stay in view.
 */
export function TrialTable(props: {
  trials: ViewTrial[];
  runs: number;
  sort: Sort;
  onSort: (key: SortKey) => void;
  selected: string | null;
  onSelect: (key: string) => void;
}) {
  const arrow = (key: SortKey) => (props.sort.key === key ? (props.sort.descending ? " ▼" : " ▲") : "");
  const columns = props.runs > 1 ? COLUMNS : COLUMNS.filter(([key]) => key !== "run");
  return html`<table id="trials" class=${props.selected ? "compact" : ""}>
    <thead><tr>${columns.map(
      ([key, label]) =>
        html`<th><button type="button" class="sort" data-sort=${key} onClick=${() => props.onSort(key)}>${label}${arrow(key)}</button></th>`,
    )}<th>stop</th></tr></thead>
    <tbody>${props.trials.map(
      (t) => html`<tr key=${t.key} data-key=${t.key} data-trial=${t.trialId}
          class=${`trial${props.selected === t.key ? " selected" : ""}${t.superseded ? " superseded" : ""}`}
          onClick=${() => props.onSelect(t.key)}>
        ${props.runs > 1 ? html`<td>${t.run}</td>` : null}<td>${t.task}</td><td>${t.cell}</td><td class="text">${t.configuration}</td>
        <td class="num">${t.index}${t.attempt > 1 ? ` (attempt ${t.attempt})` : ""}</td>
        <td class=${outcomeClass(t)}>${outcomeText(t)}</td><td class="text">${breakable(t.attribution)}</td>
        <td class="num">${t.tokens.toLocaleString("en-US")}</td><td class="num">${(t.durationMs / 1000).toFixed(1)}s</td>
        <td>${t.stopReason}</td></tr>`,
    )}</tbody>
  </table>
  <p class="meta" id="shown-count">${props.trials.length} trial(s) shown; # is the 0-based index in the cell, as in the trial id.</p>`;
}

/** Pass rates per configuration (cell spec) and run, over all tasks. */
export function RunsCompared(props: { index: ViewIndex }) {
  const runs = props.index.runs;
  const specs = [...new Set(runs.flatMap((r) => r.configurations.map((c) => c.label)))];
  const cellOf = (runId: string, spec: string) => {
    const run = runs.find((r) => r.id === runId)!;
    const cells = run.cells.filter((c) => c.spec === spec);
    if (cells.length === 0) return "—";
    const passes = cells.reduce((n, c) => n + c.passes, 0);
    const valid = cells.reduce((n, c) => n + c.runs, 0);
    const config = run.configurations.find((c) => c.label === spec);
    return `${passes}/${valid}${config ? ` · ${config.model ?? "no model"} via ${config.harness}` : ""}`;
  };
  return html`<section id="runs-compared"><h2>Runs compared</h2>
    <table><thead><tr><th>cell</th>${runs.map((r) => html`<th>${r.id}</th>`)}</tr></thead>
    <tbody>${specs.map((spec) => html`<tr data-spec=${spec}><td>${spec}</td>${runs.map((r) => html`<td class="tally" data-run=${r.id}>${cellOf(r.id, spec)}</td>`)}</tr>`)}</tbody></table>
  </section>`;
}
