/**
 * Server-supplied text made safe to show: the one implementation behind
 * `Redaction.neutralize` and `ApprovalRequest.neutralize`. It sits at the
 * wire layer so a transport can clean what a server says (a challenge's
 * `error_description`, a close reason) without reaching the policy modules.
 *
 * @internal
 */

// ESC sequences (CSI; OSC, DCS, APC, PM strings up to BEL or ST; other escapes), C0 and C1 controls but tab and
// line feed, DEL, bidi marks, embeddings, overrides and isolates, zero-width and invisible characters, the BOM,
// Unicode tag characters (invisible text a model still reads)
const unsafe =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point: they are removed
  /\x1b(?:\[[0-?]*[ -/]*[@-~]?|[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-_]?)|[\0-\x08\v-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g

/** @internal */
export const neutralize = (text: string, mode: "line" | "text" = "text"): string => {
  const cleaned = text.replace(/\r\n?|[\u2028\u2029]/g, "\n").replace(unsafe, "")
  return mode === "line" ? cleaned.replace(/[\n\t]/g, " ") : cleaned
}
