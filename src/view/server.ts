// `kgate view` without --out: serves the viewer on 127.0.0.1 (never another interface). Fixed
// routes only, no path from the URL reaches the file system; the index is rebuilt from the run's
// files on every request for it, which is what makes the live refresh show new trials.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ViewData } from "./data.ts";
import { asset, INDEX_HTML, indexScript, TRIAL_KEY, trialScript } from "./site.ts";

export interface ServedSite {
  url: string;
  close(): Promise<void>;
}

const CSP = "default-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const TYPES = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};

function send(res: ServerResponse, status: number, type: keyof typeof TYPES, body: string): void {
  res.writeHead(status, {
    "content-type": TYPES[type],
    "cache-control": "no-store",
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
  });
  res.end(body);
}

/** Serves until closed; `load` reads the runs afresh (it may throw: the error is shown, not fatal). */
export async function serveSite(load: () => ViewData, port: number, host = "127.0.0.1"): Promise<ServedSite> {
  let latest: ViewData | null = null;
  /** The runs read again; when that fails after a good read, the last good index says why. */
  const fresh = (): ViewData => {
    try {
      latest = load();
      return latest;
    } catch (err) {
      if (!latest) throw err;
      const problem = `refresh failed at ${new Date().toISOString()}: ${(err as Error).message}`;
      return { ...latest, index: { ...latest.index, problems: [problem] } };
    }
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const address = server.address() as AddressInfo;
    const allowedHosts = [`127.0.0.1:${address.port}`, `localhost:${address.port}`];
    if (!allowedHosts.includes(req.headers.host ?? "")) return send(res, 421, "html", "unknown host");
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "html", "method not allowed");
    const route = new URL(req.url ?? "/", "http://localhost").pathname;
    try {
      if (route === "/" || route === "/index.html") return send(res, 200, "html", INDEX_HTML);
      if (route === "/app.js") return send(res, 200, "js", asset("app.js"));
      if (route === "/app.css") return send(res, 200, "css", asset("app.css"));
      if (route === "/data/runs.js") return send(res, 200, "js", indexScript(fresh().index));
      const trial = /^\/data\/trial\/([^/]+)\.js$/.exec(route);
      if (trial && TRIAL_KEY.test(trial[1]!)) {
        const detail = (latest ?? fresh()).detail(trial[1]!);
        if (detail) return send(res, 200, "js", trialScript(detail));
      }
      return send(res, 404, "html", "not found");
    } catch (err) {
      return send(res, 500, "html", `kgate view: ${(err as Error).message}`);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
