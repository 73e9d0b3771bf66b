import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Files from "./fileSystem.js"
import type { RecordName } from "./records.js"
import type { Backend } from "./recordStore.js"
import * as Sealer from "./sealer.js"

/**
 * One file per record, named `<kind>-<sha256 of the record name>.json`, so
 * any id (URLs included) becomes a safe file name. Writes go to an
 * owner-only temporary file that is flushed and renamed over the old one.
 */
export const make = (fs: FileSystem.FileSystem, path: Path.Path, directory: string): Backend => {
  const fileOf = (name: RecordName) =>
    Effect.map(Sealer.sha256Hex(name.text), (hash) => path.join(directory, `${name.kind}-${hash}.json`))

  return {
    get: (name) => Effect.flatMap(fileOf(name), (file) => Files.readIfExists(fs, file, `the ${name.kind} record`)),
    set: (name, value) =>
      Effect.flatMap(fileOf(name), (file) => {
        const temporary = `${file}.${Sealer.randomId(8)}.tmp`
        return Files.writePrivateFile(fs, temporary, value).pipe(
          Effect.zipRight(fs.rename(temporary, file)),
          Effect.tapError(() => Effect.ignore(fs.remove(temporary, { force: true }))),
          Effect.mapError(Files.failure(`writing the ${name.kind} record failed`))
        )
      }),
    remove: (name) =>
      Effect.flatMap(fileOf(name), (file) =>
        fs.remove(file).pipe(
          Effect.catchIf(Files.isNotFound, () => Effect.void),
          Effect.mapError(Files.failure(`deleting the ${name.kind} record failed`))
        ))
  }
}
