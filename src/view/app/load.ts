// Loads the viewer's data files by script tag, so that the same folder works from a static server
// and from file:// (where fetch is refused): data/runs.js and data/trial/<key>.js each call back.
import type { TrialDetail, ViewIndex } from "../schema.ts";

interface Callbacks {
  index(data: ViewIndex): void;
  trial(data: TrialDetail): void;
}

declare global {
  var kgateView: Callbacks;
}

const waiting = new Map<string, (d: TrialDetail) => void>();
let onIndex: (data: ViewIndex) => void = () => {};

globalThis.kgateView = {
  index: (data) => onIndex(data),
  trial: (data) => {
    waiting.get(data.key)?.(data);
    waiting.delete(data.key);
  },
};

function inject(src: string, onError: () => void): void {
  const script = document.createElement("script");
  script.src = src;
  script.onload = () => script.remove();
  script.onerror = () => {
    script.remove();
    onError();
  };
  document.head.append(script);
}

export function listenForIndex(handler: (data: ViewIndex) => void): void {
  onIndex = handler;
}

/** Asks for data/runs.js again (the server writes it afresh: live refresh). */
export function reloadIndex(): void {
  inject(`data/runs.js?t=${Date.now()}`, () => {});
}

export function loadTrial(key: string, live: boolean): Promise<TrialDetail> {
  return new Promise((resolve, reject) => {
    waiting.set(key, resolve);
    inject(`data/trial/${encodeURIComponent(key)}.js${live ? `?t=${Date.now()}` : ""}`, () => {
      waiting.delete(key);
      reject(new Error(`data/trial/${key}.js could not be loaded`));
    });
  });
}
