/** Types of scripts/server-bundle.mjs, for the TypeScript that imports it (bench/). */
export declare const root: string;
export declare const bundlePath: string;
export declare function newestMtime(dir: string, counts?: (name: string) => boolean): number;
export declare function newestCodeMtime(dir: string): number;
export declare function serverBundleStale(): boolean;
export declare function buildServerBundle(): Promise<void>;
