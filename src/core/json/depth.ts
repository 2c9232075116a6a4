/**
 * How deep a JSON value nests, measured without recursion. Write paths check it before they
 * change the store: a value deeper than the stack can walk would otherwise fail half-way
 * through a write (a 400 after part of the write was applied).
 */

/** Deepest nesting tq stores: Python's default recursion limit, so nothing Weave could store is refused. */
export const MAX_JSON_DEPTH = 1000;

/** Whether `value` nests arrays/objects more than `limit` levels deep. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > limit) return true;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
