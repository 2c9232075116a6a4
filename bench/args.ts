/** `--name value` options of the small bench scripts (profile.ts, render-loop.ts). */
export function optionReader(argv: readonly string[]): (name: string) => string | undefined {
  return (name) => {
    const i = argv.indexOf(name);
    return i < 0 ? undefined : argv[i + 1];
  };
}
