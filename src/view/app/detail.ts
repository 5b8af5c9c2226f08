// One trial's detail: the verdict with reward, score, attribution and criteria; the diff against the
// reference side by side (expected | actual, one row per line pair); the collected outputs' texts;
// the probes' answers; the trajectory, a tool call shown with its result in one row.
import type { ComponentChildren } from "preact";
import type { DiffRow, TrialDetail, ViewEvent, ViewTrial } from "../schema.ts";
import { html, outcomeClass, outcomeText } from "./views.ts";

function DiffTable(props: { rows: DiffRow[] }) {
  return html`<table id="diff" class="diff">
    <thead><tr><th>expected</th><th>actual</th></tr></thead>
    <tbody>${props.rows.map((r) => {
      if (r.kind === "pair") {
        return html`<tr class="pair"><td class="expected">${r.expected ?? ""}</td><td class="actual">${r.actual ?? ""}</td></tr>`;
      }
      if (r.kind === "same") return html`<tr class="same"><td>${r.text}</td><td>${r.text}</td></tr>`;
      return html`<tr class=${r.kind}><td colspan="2">${r.text}</td></tr>`;
    })}</tbody>
  </table>`;
}

function EventItem(props: { e: ViewEvent }) {
  const e = props.e;
  const call = e.type === "tool-call";
  const none = [
    call && !e.text ? "no input" : null,
    call && e.result && !e.result.text ? "empty output" : null,
  ];
  const head = [call ? "tool" : e.type, e.name, e.turn === null ? null : `turn ${e.turn}`, ...none]
    .filter(Boolean)
    .join(" · ");
  const failed = e.isError || e.result?.isError;
  return html`<li class=${`event ${e.type}${failed ? " error" : ""}`}>
    <div class="event-head">${head}<span class="at">${e.at}</span></div>
    ${e.text ? html`<pre class="input">${e.text}</pre>` : null}
    ${e.result?.text ? html`<pre class="output">${e.result.text}</pre>` : null}
  </li>`;
}

type ViewCriterion = TrialDetail["verdict"]["criteria"][number];

function Outputs(props: { outputs: TrialDetail["outputs"]; criteria: ViewCriterion[] }) {
  return html`<h3>Outputs</h3><ul id="outputs">${props.outputs.map(
    (
      o,
    ) => html`<li data-path=${o.path}><span class="output-head">${o.path}: ${o.status}${o.reason ? ` (${o.reason})` : ""}${o.note ? ` · ${o.note}` : ""}</span>
      ${o.text !== null ? html`<pre class="output-text">${o.text}</pre>` : null}
      <${Judged} criteria=${props.criteria.filter((c) => c.judge?.reads.includes(o.path))}/></li>`,
  )}</ul>`;
}

/** The judge criteria that read an output, beside it: the criterion as given, the verdict and the reason. */
function Judged(props: { criteria: ViewCriterion[] }) {
  if (props.criteria.length === 0) return null;
  return html`<ul class="judged">${props.criteria.map((c) => {
    const j = c.judge!;
    const cost = j.costUsd === null ? "" : `, $${j.costUsd.toFixed(4)}`;
    return html`<li class=${c.passed ? "pass" : "fail"}><span class="judge-verdict">${c.passed ? "✓" : "✗"} ${c.name}: judge ${j.verdict}</span> <span class="meta">(${j.config}${j.model ? `, ${j.model}` : ""}${cost})</span>
      <div class="judge-criterion">criterion: ${j.criterion}</div>
      ${j.reason ? html`<div class="judge-reason">reason: ${j.reason}</div>` : null}</li>`;
  })}</ul>`;
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
        <dt>verdict</dt><dd class=${outcomeClass(t)} id="verdict-status">${t.mustFail && v.status === "pass" ? `${outcomeText(t)}: ` : ""}${v.status} (reward ${v.reward}, score ${v.score.toFixed(2)})</dd>
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
      ${
        v.diffRows
          ? html`<${DiffTable} rows=${v.diffRows}/>`
          : v.diff
            ? html`<pre id="diff" class="diff">${v.diff}</pre>`
            : html`<p class="meta" id="diff">no diff recorded</p>`
      }
      ${d.outputs.length > 0 ? html`<${Outputs} outputs=${d.outputs} criteria=${v.criteria}/>` : null}
      ${d.probes.length > 0 ? html`<h3>Probes</h3><dl id="probes">${d.probes.map((p) => html`<dt>${p.question}</dt><dd><pre>${p.answer}</pre></dd>`)}</dl>` : null}
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
