// Types of scripts/build-view.mjs for the test that compares the committed bundle with a fresh build.
export function buildViewBundle(): Promise<string>;
