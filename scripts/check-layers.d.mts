/** A package's layers (lowest first), the layer of each file outside a layer folder, and imports let pass for now. */
export interface PackageLayers {
  readonly layers: ReadonlyArray<string>
  readonly files: Readonly<Record<string, string>>
  readonly fallback?: string
  readonly known?: ReadonlyArray<{ readonly from: string; readonly to: string; readonly why: string }>
}
/** The layer table of this repository's packages. */
export declare const packages: Readonly<Record<string, PackageLayers>>
/** Checks every package under `root/packages`: upward imports, value import cycles, internal imports across packages. */
export declare const checkLayers: (
  root: string,
  config?: Readonly<Record<string, PackageLayers>>
) => { readonly problems: Array<string>; readonly notes: Array<string>; readonly graphs: Array<unknown> }
