/**
 * How deep a JSON text nests, checked before it is parsed: JSON.parse of a 2 MB payload nested
 * a million levels deep costs most of a second, which the hook does not have. Pure: a text in,
 * yes or no out. Cheap for what hosts send: the brackets are counted first with indexOf (a few
 * dozen in a usual payload), and the text is walked character by character (strings skipped)
 * only when there are more brackets than the limit allows.
 */

/** Deepest nesting of arrays and objects the hook parses (hosts' payloads nest a few levels). */
export const MAX_PAYLOAD_DEPTH = 64;

/** Openers ('[' and '{') in `text`, counting stops once past `limit`. */
function openersPast(text: string, limit: number): boolean {
  let n = 0;
  for (const ch of ['[', '{']) {
    for (let i = text.indexOf(ch); i !== -1; i = text.indexOf(ch, i + 1)) if (++n > limit) return true;
  }
  return false;
}

/** True when no array or object in `text` (read as JSON) lies deeper than `max`. Brackets inside
 *  strings do not count. Text that is not JSON gets an answer too (JSON.parse refuses it later). */
export function nestingWithin(text: string, max: number = MAX_PAYLOAD_DEPTH): boolean {
  if (!openersPast(text, max)) return true;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return false;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return true;
}
