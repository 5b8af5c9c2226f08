// The monitoring protocol's public face: metrics, statistics, questions, the published-format import.

export * from "./battery.ts";
export * from "./battery-table.ts";
export * from "./canonical.ts";
export * from "./fixed.ts";
export { followUpPreamble } from "./follow-up.ts";
export * from "./leaderboard.ts";
export * from "./metrics.ts";
export * from "./payoff.ts";
export * from "./prospective.ts";
export * from "./published.ts";
export * from "./questions.ts";
export { monitoringHtmlSection, monitoringSection } from "./report-section.ts";
export * from "./retrospective.ts";
export * from "./runs.ts";
export * from "./runs-table.ts";
export * from "./statistics.ts";
