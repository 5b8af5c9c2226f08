// Why a verdict failed, in the one line a check prints: the first failed criterion with its detail
// (for a compared output that names the first differing value: "expected 38.5, got 12.4", as
// `kgate show` does), the others by name; a format failure by its reason.
import type { Verdict } from "../verify/index.ts";

export function failureText(verdict: Pick<Verdict, "reason" | "criteria" | "attribution">): string {
  // a judge criterion skipped (left to the judge calibration) failed nothing
  const failed = verdict.criteria.filter((c) => !c.passed && c.judge?.verdict !== "skipped");
  const first = failed[0];
  if (verdict.attribution === "format" || !first?.detail) return verdict.reason ?? "no reason";
  const others = failed.slice(1).map((c) => c.name);
  const more = others.length > 0 ? `; also failed: ${others.join(", ")}` : "";
  return `${first.name}: ${first.detail}${more}`;
}
