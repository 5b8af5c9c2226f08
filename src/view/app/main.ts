// The trajectory viewer in the browser: waits for data/runs.js, then shows the runs compared, the
// filterable trial table, a task's cells side by side and the selected trial's detail. Served by
// `kgate view` it re-reads the index every few seconds (live refresh); exported it is static.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { TrialDetail, ViewIndex } from "../schema.ts";
import { Detail } from "./detail.ts";
import {
  applyFilters,
  type FilterName,
  type Filters,
  type Sort,
  type SortKey,
  sortTrials,
} from "./filter.ts";
import { listenForIndex, loadTrial, reloadIndex } from "./load.ts";
import { SideBySide } from "./side-by-side.ts";
import { FilterBar, html, RunsCompared, TrialTable } from "./views.ts";

const REFRESH_MS = 3000;

function App(props: { first: ViewIndex }) {
  const [index, setIndex] = useState(props.first);
  const [filters, setFilters] = useState<Filters>({});
  const [sort, setSort] = useState<Sort>({ key: "task", descending: false });
  const [showRetried, setShowRetried] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const [detail, setDetail] = useState<TrialDetail | null>(null);
  const [failed, setFailed] = useState<string | null>(null);

  useEffect(() => {
    listenForIndex(setIndex);
    if (!index.live) return;
    const timer = setInterval(reloadIndex, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  useEffect(() => {
    if (selected === null) return;
    setDetail(null);
    setFailed(null);
    loadTrial(selected, index.live).then(setDetail, (err: Error) => setFailed(err.message));
  }, [selected]);

  const shown = sortTrials(applyFilters(index.trials, filters, showRetried), sort);
  const trial = index.trials.find((t) => t.key === selected) ?? null;
  const task = filters.task || trial?.task;
  const onFilter = (name: FilterName, value: string) => setFilters({ ...filters, [name]: value });
  const onSort = (key: SortKey) => setSort({ key, descending: sort.key === key ? !sort.descending : false });

  return html`<header>
      <h1>kgate view</h1>
      <p class="meta" id="status">${`${index.runs.map((r) => r.id).join(", ")} · ${index.trials.length} trial records · `}
        ${index.live ? `live: refreshed ${index.generatedAt}` : `exported ${index.generatedAt}`} by kgate ${index.kgateVersion}</p>
      ${index.problems.map((p) => html`<p class="problem" id="refresh-problem">${p}</p>`)}
      ${index.runs.flatMap((r) => r.warnings.map((w) => html`<p class="problem">${r.id}: ${w}</p>`))}
    </header>
    <${RunsCompared} index=${index}/>
    <h2>Trials</h2>
    <${FilterBar} trials=${index.trials} filters=${filters} onChange=${onFilter} showRetried=${showRetried} onShowRetried=${setShowRetried}/>
    <div class="split">
      <div class="list"><${TrialTable} trials=${shown} runs=${index.runs.length} sort=${sort} onSort=${onSort} selected=${selected} onSelect=${setSelected}/></div>
      ${trial ? html`<${Detail} trial=${trial} detail=${detail} failed=${failed}/>` : null}
    </div>
    ${task ? html`<${SideBySide} index=${index} task=${task} trials=${index.trials} onSelect=${setSelected}/>` : null}`;
}

let started = false;
listenForIndex((first) => {
  if (started) return;
  started = true;
  const root = document.getElementById("app")!;
  root.textContent = "";
  render(html`<${App} first=${first}/>`, root);
});
