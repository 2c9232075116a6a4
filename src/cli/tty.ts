/**
 * Whether stderr is a terminal, which decides the comforts meant for a person (load progress,
 * notices about unknown projects, the request log of `tq serve`). `TQ_FORCE_TTY=1` says yes
 * without a terminal, so tests and recorded demos can see what a person sees.
 */
export function stderrIsTerminal(env: NodeJS.ProcessEnv = process.env, stream: { isTTY?: boolean } = process.stderr): boolean {
  return stream.isTTY === true || env.TQ_FORCE_TTY === '1';
}
