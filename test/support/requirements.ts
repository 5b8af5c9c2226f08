// Test support: the one setup step that a test names when the machine lacks what its lane needs
// (a Docker daemon for *.docker.test.ts, Chromium for *.browser.test.ts).

/** What a contributor runs to get Docker, Chromium and the npm packages (CONTRIBUTING.md). */
export const SETUP_STEP = "run `bash scripts/setup.sh` (installs Docker and Chromium, starts dockerd)";
