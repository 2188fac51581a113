/** Types of scripts/server-bundle.mjs, for the TypeScript that imports it (bench/, its test). */
export declare const root: string;
export declare const bundlePath: string;
export declare function inputsPathOf(bundle: string): string;
export declare function newestMtime(dir: string, counts?: (name: string) => boolean): number;
export declare function serverBundleStale(bundle?: string, base?: string): boolean;
export declare function buildServerBundle(outfile?: string): Promise<void>;
export declare function buildServerBundleIfStale(): Promise<boolean>;
