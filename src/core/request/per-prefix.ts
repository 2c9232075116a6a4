/**
 * Request models whose wire keys depend on the engine's field prefix (`svc_user_id` or
 * `wb_user_id`) are built once per prefix and then reused.
 */
export function perPrefix<P, T>(build: (prefix: P) => T): (prefix: P) => T {
  const built = new Map<P, T>();
  return (prefix) => {
    let value = built.get(prefix);
    if (value === undefined) built.set(prefix, (value = build(prefix)));
    return value;
  };
}
