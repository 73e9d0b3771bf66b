/**
 * The values core uses of `@effect/platform`'s `KeyValueStore` (its tag and
 * its memory store), in a module of their own. Public modules import the
 * platform's module as types only and reach its values here, from the
 * Layers and constructors that read or build a store: a client that uses
 * none of them (a stdio client with no store) does not load the platform's
 * `KeyValueStore` (and `FileSystem`, `Path` it imports), because a bundler
 * drops this module with the code that would use it. An import kept in a
 * module the client does reach would stay in the bundle and be loaded,
 * used or not. `test/ClientBundle.test.ts` of transport-stdio checks it.
 *
 * @internal
 */
export { KeyValueStore, layerMemory } from "@effect/platform/KeyValueStore"
