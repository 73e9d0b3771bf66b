/** The files a package's `exports` name (every condition but the source one) that do not exist under `dir`. */
export declare const missingFiles: (dir: string) => Array<string>
