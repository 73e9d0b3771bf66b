/**
 * Builds a workspace package's `src` into `outdir` (default `<root>/dist/node`): one bundle of
 * every public module plus one small re-exporting file per module (see bundle-node.mjs).
 * Returns the files written, relative to `outdir`.
 */
export declare const bundleNode: (root: string, outdir?: string) => Promise<Array<string>>

/** Whether a package (its `package.json`) gets `dist/node/`: not one with an optional peer dependency. */
export declare const bundledForNode: (manifest: { readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }> }) => boolean
