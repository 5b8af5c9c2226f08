// The canary GUID an artefact carries in an HTML comment (kgate-canary), found in its text.

const CANARY = /<!--\s*kgate-canary:\s*([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\s*-->/i;

export function extractCanary(text: string): string | undefined {
  return CANARY.exec(text)?.[1]?.toLowerCase();
}
