// A task's cells side by side: a matrix with one row per run and one column per cell (+A, -A, each
// variant, the controls), each entry the cell's tally and its trials as chips; click one to open it.
import type { ViewIndex, ViewTrial } from "../schema.ts";
import { html, outcomeClass, outcomeText } from "./views.ts";

export function SideBySide(props: {
  index: ViewIndex;
  task: string;
  trials: ViewTrial[];
  onSelect: (key: string) => void;
}) {
  const runs = props.index.runs.filter((r) => r.cells.some((c) => c.task === props.task));
  const labels = [
    ...new Set(runs.flatMap((r) => r.cells.filter((c) => c.task === props.task).map((c) => c.label))),
  ];
  return html`<section id="side-by-side"><h2>${props.task}: cells side by side</h2>
    <table class="matrix"><thead><tr><th>run</th>${labels.map((l) => html`<th data-cell=${l}>${l}</th>`)}</tr></thead>
    <tbody>${runs.map(
      (run) =>
        html`<tr data-run=${run.id}><th>${run.id}<div class="meta">${run.decisions[props.task] ?? ""}</div></th>${labels.map(
          (label) => {
            const cell = run.cells.find((c) => c.task === props.task && c.label === label);
            if (!cell) return html`<td class="column empty" data-run=${run.id} data-cell=${label}>—</td>`;
            const trials = props.trials.filter(
              (t) => t.run === run.id && t.cell === label && t.task === props.task && !t.superseded,
            );
            return html`<td class="column" data-run=${run.id} data-cell=${label}>
          <div class="meta">${cell.condition} · ${cell.passes}/${cell.runs} pass</div>
          ${trials.map(
            (t) =>
              html`<button type="button" class=${`chip ${outcomeClass(t)}`} data-key=${t.key} onClick=${() => props.onSelect(t.key)}>#${t.index} ${outcomeText(t)}${t.attribution ? ` · ${t.attribution}` : ""}</button>`,
          )}</td>`;
          },
        )}</tr>`,
    )}</tbody></table></section>`;
}
