// The viewer's files: index.html, the prebuilt app bundle and style sheet (src/view/assets/), and
// the data files as scripts that call back into the app (data/runs.js, data/trial/<key>.js).
import { readFileSync } from "node:fs";
import path from "node:path";
import { packagePath } from "../package-info.ts";
import type { TrialDetail, ViewIndex } from "./schema.ts";

const ASSETS = packagePath("src", "view", "assets");

export const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kgate view</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="app.css">
</head>
<body>
<div id="app">Loading the runs… (this page needs JavaScript)</div>
<script src="app.js"></script>
<script src="data/runs.js"></script>
</body>
</html>
`;

export function asset(name: "app.js" | "app.css"): string {
  return readFileSync(path.join(ASSETS, name), "utf8");
}

/** JSON as a script expression: line and paragraph separators escaped for older parsers. */
const expression = (value: unknown) =>
  JSON.stringify(value)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");

export function indexScript(index: ViewIndex): string {
  return `kgateView.index(${expression(index)});\n`;
}

export function trialScript(detail: TrialDetail): string {
  return `kgateView.trial(${expression(detail)});\n`;
}

/** Keys are `<run>-<row>`: the only names a trial's data file may have. */
export const TRIAL_KEY = /^\d+-\d+$/;
