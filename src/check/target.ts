/**
 * What the conformance runner talks to: a Target sends one CaseRequest and reports what came
 * back. Two implementations exist: HTTP (a running server) and in-process (the engine's routes
 * called directly). Both report responses in the same parsed form, so one comparison serves
 * both.
 */
import type { FieldPrefix } from '../api/types.ts';
import type { CaseRequest, ConformanceCase } from './case.ts';

export interface TargetResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** A JSON Lines body, one parsed value per non-empty line. */
  lines?: unknown[];
  /** A JSON (non-stream) body. */
  json?: unknown;
  /** The raw body when it was neither JSON nor JSON Lines (shown in diffs). */
  text?: string;
  /** The body text of a JSON or JSON Lines answer, for `json_texts` (number spellings). */
  raw?: string;
  /** Diagnostics the target adds (e.g. the stack of an in-process 500); never compared. */
  note?: string;
}

export interface Target {
  /** Shown in reports, e.g. `http://127.0.0.1:8080` or `in-process`. */
  readonly name: string;
  /**
   * How the target spells user/run fields (semantics.md#wire-prefix); cases are written with
   * `svc_`.
   */
  readonly fieldPrefix: FieldPrefix;
  /** The main user's name, substituted for `{{user}}`. */
  readonly user: string;
  /** Why this target cannot run a case at all (e.g. transport behaviour in-process), or undefined. */
  skipReason(c: ConformanceCase): string | undefined;
  send(req: CaseRequest): Promise<TargetResponse>;
}

/** Cases tagged this way exercise HTTP itself (headers, routing, methods, credentials). */
export const TRANSPORT_TAG = 'transport';

/**
 * Cases whose answer depends on tq's deliberate deviations from production (semantics.md#threads's
 * paging of unfinished threads, 13's deleted turns; 13a). `tq check --skip-tags` leaves them
 * out when judging a production-compatible server.
 */
export const DEVIATES_TAG = 'deviates-from-production';
