// The trial table's filters and sort, as pure functions over the index rows.
import type { ViewTrial } from "../schema.ts";

export const FILTERS = [
  "run",
  "task",
  "cell",
  "configuration",
  "condition",
  "outcome",
  "attribution",
] as const;
export type FilterName = (typeof FILTERS)[number];
export type Filters = Partial<Record<FilterName, string>>;

export const SORTS = [
  "run",
  "task",
  "cell",
  "configuration",
  "index",
  "outcome",
  "attribution",
  "tokens",
  "durationMs",
] as const;
export type SortKey = (typeof SORTS)[number];
export interface Sort {
  key: SortKey;
  descending: boolean;
}

/** The value a trial shows for a filter; "none" for a trial without an attribution. */
export function filterValue(t: ViewTrial, name: FilterName): string {
  if (name === "attribution") return t.attribution ?? "none";
  return String(t[name]);
}

export function choices(trials: readonly ViewTrial[], name: FilterName): string[] {
  return [...new Set(trials.map((t) => filterValue(t, name)))].sort();
}

export function applyFilters(
  trials: readonly ViewTrial[],
  filters: Filters,
  showRetried: boolean,
): ViewTrial[] {
  return trials.filter(
    (t) =>
      (showRetried || !t.superseded) &&
      FILTERS.every(
        (name) =>
          filters[name] === undefined || filters[name] === "" || filterValue(t, name) === filters[name],
      ),
  );
}

export function sortTrials(trials: readonly ViewTrial[], sort: Sort): ViewTrial[] {
  const sign = sort.descending ? -1 : 1;
  return [...trials].sort((a, b) => {
    const x = a[sort.key] ?? "";
    const y = b[sort.key] ?? "";
    const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
    return sign * order || a.key.localeCompare(b.key, "en", { numeric: true });
  });
}
