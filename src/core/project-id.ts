/**
 * The one validation of a project id (semantics.md#project-ids), used by every route (through
 * src/api/run-route.ts), by grants and by the fixture loader: `entity/project`, both parts
 * non-empty, no further `/`, no `..` part, no whitespace, control or zero-width (format)
 * characters. A stricter id on one path than another is how read-arounds start.
 */

/** Whitespace, control (Cc) and format (Cf: zero-width, bidi marks, soft hyphen, BOM) characters. */
const INVISIBLE = /[\s\p{Cc}\p{Cf}]/u;

/** Longest piece of a rejected id repeated back in a message. */
const SHOWN_MAX = 128;

/** Why `id` is not a valid project id, or null when it is one. */
export function projectIdProblem(id: string): string | null {
  const parts = id.split('/');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return 'expected the form <entity>/<project>';
  if (parts[0] === '..' || parts[1] === '..') return "a '..' part is not allowed";
  if (INVISIBLE.test(id)) return 'whitespace, control and zero-width characters are not allowed';
  return null;
}

/** `id` as it may be shown back: invisible characters escaped, long ids cut. */
export function showProjectId(id: string): string {
  const cut = id.length > SHOWN_MAX ? id.slice(0, SHOWN_MAX) + '…' : id;
  return cut.replace(/[\s\p{Cc}\p{Cf}]/gu, (c) => (c === ' ' ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
