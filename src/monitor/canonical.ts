// The battery's canonical model names and tracks, and the mapping of its published file and folder
// names onto them (names vary in spacing, case, hyphens, "Preview" suffixes and track suffixes).

/** The battery's model names, in the order kgate prints them. */
export const CANONICAL_MODELS = [
  "Claude Haiku 4.5",
  "Claude Opus 4.6",
  "Claude Sonnet 4.6",
  "DeepSeek R1",
  "DeepSeek V3.2",
  "Gemini 2.5 Flash",
  "Gemini 2.5 Pro",
  "Gemini 3 Flash",
  "Gemini 3.1 Pro",
  "Gemma 3 1B",
  "Gemma 3 12B",
  "Gemma 3 27B",
  "GLM-5",
  "GPT-5.4",
  "GPT-5.4 mini",
  "GPT-5.4 nano",
  "Qwen 80B Inst",
  "Qwen 80B Think",
  "Qwen 235B",
  "Qwen Coder 480B",
] as const;

export const TRACKS = ["T1", "T2", "T3", "T4", "T5", "T6"] as const;
export type Track = (typeof TRACKS)[number];
/** The retrospective tracks whose mean delta gives the profile; T6 is the prospective one. */
export const RETROSPECTIVE_TRACKS: readonly Track[] = ["T1", "T2", "T3", "T4", "T5"];
export const PROSPECTIVE_TRACK: Track = "T6";

/** Track folders of the published data, keyed by their name in lower case. */
const TRACK_FOLDERS: Record<string, Track> = {
  overhypothesis: "T1",
  "meta cog": "T2",
  "social cognition": "T3",
  attention: "T4",
  executive: "T5",
  prospective: "T6",
};

export function trackOfFolder(folder: string): Track | null {
  return TRACK_FOLDERS[folder.trim().toLowerCase()] ?? null;
}

/** Lower case, hyphens and underscores as spaces, single spaces: the form names are compared in. */
const key = (name: string) => name.toLowerCase().replace(/[-_]+/g, " ").replace(/\s+/g, " ").trim();

/** Forms seen in the published file names that are not a canonical name in another spelling. */
const ALIASES: Record<string, string> = {
  r1: "DeepSeek R1",
  haiku: "Claude Haiku 4.5",
  "opus 4.6": "Claude Opus 4.6",
  "sonnet 4.6": "Claude Sonnet 4.6",
  "gemini flash 3": "Gemini 3 Flash",
  "qwen 3 next 80b instruct": "Qwen 80B Inst",
  "qwen 3 next 80b thinking": "Qwen 80B Think",
  "qwen 3 235b a22b instruct": "Qwen 235B",
  "qwen 3 coder 480b": "Qwen Coder 480B",
};

const BY_KEY = new Map<string, string>([
  ...CANONICAL_MODELS.map((name) => [key(name), name] as [string, string]),
  ...Object.entries(ALIASES),
]);

/** Track words at the end of a file name (longest first), with or without a space before them. */
const TRACK_SUFFIXES = [
  "prospective regulation results",
  "prospective regulation",
  "prospective",
  "social cognition",
  "social cog",
  "socialcog",
  "soc cog",
  "metacog",
  "overhyp",
  "attention",
  "executive",
  "exec",
];

/** The canonical model of a published file name (e.g. `R1 metacog.csv`), or null when unknown. */
export function canonicalModel(fileName: string): string | null {
  let name = key(fileName.replace(/\.csv$/i, ""));
  const suffix = TRACK_SUFFIXES.find((s) => name.endsWith(s));
  if (suffix) name = name.slice(0, -suffix.length).trim();
  name = name.replace(/ preview$/, "");
  return BY_KEY.get(name) ?? null;
}

/** Order of canonical names as listed above; unknown names sort after them, alphabetically. */
export function compareModels(a: string, b: string): number {
  const rank = (m: string) => {
    const i = (CANONICAL_MODELS as readonly string[]).indexOf(m);
    return i === -1 ? CANONICAL_MODELS.length : i;
  };
  return rank(a) - rank(b) || a.localeCompare(b);
}
