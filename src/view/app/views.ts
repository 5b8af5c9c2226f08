// The viewer's parts as Preact components (htm templates, no build-time JSX): the trial table with
// its filters, one trial's detail (verdict, diff, attribution, probes, trajectory), a task's cells
// side by side, and the runs compared per configuration.
import { html } from "htm/preact";
import type { ComponentChildren } from "preact";
import type { TrialDetail, ViewEvent, ViewIndex, ViewTrial } from "../model.ts";
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

export function TrialTable(props: {
  trials: ViewTrial[];
  sort: Sort;
  onSort: (key: SortKey) => void;
  selected: string | null;
  onSelect: (key: string) => void;
}) {
  const arrow = (key: SortKey) => (props.sort.key === key ? (props.sort.descending ? " ▼" : " ▲") : "");
  return html`<table id="trials">
    <thead><tr>${COLUMNS.map(
      ([key, label]) =>
        html`<th><button type="button" class="sort" data-sort=${key} onClick=${() => props.onSort(key)}>${label}${arrow(key)}</button></th>`,
    )}<th>stop</th></tr></thead>
    <tbody>${props.trials.map(
      (t) => html`<tr key=${t.key} data-key=${t.key} data-trial=${t.trialId}
          class=${`trial${props.selected === t.key ? " selected" : ""}${t.superseded ? " superseded" : ""}`}
          onClick=${() => props.onSelect(t.key)}>
        <td>${t.run}</td><td>${t.task}</td><td>${t.cell}</td><td>${t.configuration}</td>
        <td class="num">${t.index}${t.attempt > 1 ? ` (attempt ${t.attempt})` : ""}</td>
        <td class=${outcomeClass(t)}>${t.outcome}</td><td>${t.attribution ?? ""}</td>
        <td class="num">${t.tokens.toLocaleString("en-US")}</td><td class="num">${(t.durationMs / 1000).toFixed(1)}s</td>
        <td>${t.stopReason}</td></tr>`,
    )}</tbody>
  </table>
  <p class="meta" id="shown-count">${props.trials.length} trial(s) shown; # is the 0-based index in the cell, as in the trial id.</p>`;
}

function EventItem(props: { e: ViewEvent }) {
  const e = props.e;
  const head = [e.type, e.name, e.turn === null ? null : `turn ${e.turn}`].filter(Boolean).join(" · ");
  return html`<li class=${`event ${e.type}${e.isError ? " error" : ""}`}>
    <div class="event-head">${head}<span class="at">${e.at}</span></div>
    ${e.text ? html`<pre>${e.text}</pre>` : null}
  </li>`;
}

export function Detail(props: { trial: ViewTrial; detail: TrialDetail | null; failed: string | null }) {
  const t = props.trial;
  const d = props.detail;
  let body: ComponentChildren;
  if (props.failed) body = html`<p class="problem">${props.failed}</p>`;
  else if (!d) body = html`<p class="meta">loading…</p>`;
  else {
    const v = d.verdict;
    body = html`
      <dl id="verdict" class="verdict">
        <dt>verdict</dt><dd class=${outcomeClass(t)} id="verdict-status">${v.status} (reward ${v.reward}, score ${v.score.toFixed(2)})</dd>
        <dt>attribution</dt><dd id="attribution">${v.attribution ?? "none"}</dd>
        ${
          Object.keys(v.agreement).length > 0
            ? html`<dt>agreement</dt><dd id="agreement">${Object.entries(v.agreement)
                .map(([k, x]) => `${k} ${(100 * x).toFixed(0)}%`)
                .join(", ")}</dd>`
            : null
        }
        ${v.reason ? html`<dt>reason</dt><dd>${v.reason}</dd>` : null}
        ${d.error ? html`<dt>error</dt><dd class="problem">${d.error}</dd>` : null}
      </dl>
      ${v.criteria.length > 0 ? html`<ul class="criteria">${v.criteria.map((c) => html`<li class=${c.passed ? "pass" : "fail"}>${c.passed ? "✓" : "✗"} ${c.name}${c.weight === null ? "" : html` <span class="weight">weight ${c.weight}</span>`}${c.detail ? `: ${c.detail}` : ""}</li>`)}</ul>` : null}
      <h3>Diff against the reference</h3>
      ${v.diff ? html`<pre id="diff" class="diff">${v.diff}</pre>` : html`<p class="meta" id="diff">no diff recorded</p>`}
      ${d.probes.length > 0 ? html`<h3>Probes</h3><dl id="probes">${d.probes.map((p) => html`<dt>${p.question}</dt><dd><pre>${p.answer}</pre></dd>`)}</dl>` : null}
      ${d.outputs.length > 0 ? html`<h3>Outputs</h3><ul id="outputs">${d.outputs.map((o) => html`<li>${o.path}: ${o.status}${o.reason ? ` (${o.reason})` : ""}</li>`)}</ul>` : null}
      <h3>Trajectory (${d.events.length} events)</h3>
      ${d.problems.map((p) => html`<p class="problem">${p}</p>`)}
      <ol id="events">${d.events.map((e) => html`<${EventItem} e=${e}/>`)}</ol>`;
  }
  return html`<section id="detail">
    <h2>${t.trialId}</h2>
    <p class="meta">${t.run} · ${t.task} · ${t.cell} · ${t.configuration} · ${t.condition} · stop ${t.stopReason}</p>
    ${body}
  </section>`;
}

/** A task's cells side by side (+A, -A, variants), one column per run and cell. */
export function SideBySide(props: {
  index: ViewIndex;
  task: string;
  trials: ViewTrial[];
  onSelect: (key: string) => void;
}) {
  const columns = props.index.runs.flatMap((run) =>
    run.cells
      .filter((c) => c.task === props.task)
      .map((c) => ({ run: run.id, cell: c, decision: run.decisions[props.task] })),
  );
  return html`<section id="side-by-side"><h2>${props.task}: cells side by side</h2>
    <div class="columns">${columns.map(
      (col) => html`<div class="column" data-run=${col.run} data-cell=${col.cell.label}>
        <h3>${col.cell.label} <span class="meta">${col.cell.condition}</span></h3>
        <p class="meta">${col.run} · ${col.cell.passes}/${col.cell.runs} pass · ${col.decision ?? ""}</p>
        ${props.trials
          .filter(
            (t) => t.run === col.run && t.cell === col.cell.label && t.task === props.task && !t.superseded,
          )
          .map(
            (t) =>
              html`<button type="button" class=${`chip ${outcomeClass(t)}`} data-key=${t.key} onClick=${() => props.onSelect(t.key)}>#${t.index} ${t.outcome}${t.attribution ? ` · ${t.attribution}` : ""}</button>`,
          )}
      </div>`,
    )}</div></section>`;
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
