// The monitoring protocol's public face: metrics, statistics, probes, the published-format import.
export * from "./metrics.ts";
export * from "./statistics.ts";
