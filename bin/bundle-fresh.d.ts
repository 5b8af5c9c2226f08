// Types of bundle-fresh.js, for the test setup that imports it.
export declare const BUNDLE: URL;
export declare function bundleIsCurrent(): boolean;
export declare function bundleIsFresh(): boolean;
