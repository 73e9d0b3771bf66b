/** The paths among `files` (relative to `root`) that hold or are named like key material. */
export declare const keyMaterial: (root: string, files: ReadonlyArray<string>) => Array<string>
/** The files git tracks under `root`. */
export declare const trackedFiles: (root: string) => Array<string>
/** Throws naming every tracked file that is key material. */
export declare const checkRepository: (root: string) => void
