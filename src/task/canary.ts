// The canary GUID of an artefact: the one in its `<!-- kgate-canary: <guid> -->` comment, or else the
// first GUID anywhere in its text (a curator who wrote the comment without the colon, or the GUID in
// prose, still has a canary the audit looks for).

const GUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const CANARY_COMMENT = new RegExp(`<!--\\s*kgate-canary:\\s*(${GUID})\\s*-->`, "i");
const ANY_GUID = new RegExp(`(?<![0-9a-z])(${GUID})(?![0-9a-z])`, "i");

export function extractCanary(text: string): string | undefined {
  return (CANARY_COMMENT.exec(text) ?? ANY_GUID.exec(text))?.[1]?.toLowerCase();
}
