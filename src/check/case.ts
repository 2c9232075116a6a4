/**
 * The language-neutral conformance case format (spec-tests/case.schema.json describes the same
 * shape for other implementations' runners).
 *
 * Every string in a case may contain `{{project}}` (the case's own project id, suffixed per
 * run so repeated runs never collide), `{{entity}}` (its entity part) and `{{user}}` (the
 * runner's main user name, which writes record when they name no user;
 * semantics.md#writes-user-id). Cases spell user/run fields with `svc_`; a runner renames them for
 * a `wb_` target.
 */

/** Which credentials a request is sent with. */
export type CaseAuth =
  | 'user' // the runner's main user, granted every case project
  | 'other' // a valid user with no grant on the case project
  | 'none' // no Authorization header
  | 'wrong-password' // the main user's name with a wrong password
  | { header: string }; // this exact Authorization header value

export interface CaseRequest {
  path: string;
  method?: 'POST' | 'GET' | 'PUT' | 'DELETE';
  /** A JSON body. */
  body?: unknown;
  /** A raw body sent verbatim (for `1.0` vs `1`, invalid JSON, and the like). */
  body_text?: string;
  /** multipart/form-data fields; a field whose value is {file: "..."} is sent as a file part. */
  multipart?: Record<string, string | { file: string }>;
  /**
   * An OTLP/JSON trace export, sent as production takes it: encoded as protobuf, with
   * `Content-Type: application/x-protobuf` (src/otel/). A protobuf answer is compared as the
   * JSON of its ExportTraceServiceResponse (`{}`, or `{"partialSuccess": {...}}`).
   */
  otlp?: unknown;
  /** Extra request headers (e.g. `project_id` for an OTLP export). */
  headers?: Record<string, string>;
  auth?: CaseAuth;
}

/**
 * A response header check: an exact value, `true` for "present", or `{prefix}` for a value
 * that starts with the given text (e.g. `Basic` for `Basic realm="tq"`, `application/jsonl`
 * for `application/jsonl; charset=utf-8`). Header names are matched case-insensitively.
 */
export type HeaderExpectation = string | true | { prefix: string };

export type Expect =
  | {
      status?: 200;
      /** Exact lines, in order. */
      lines?: unknown[];
      /** Lines in any order. */
      unordered?: unknown[];
      /** Ordered groups; members of a group may come in any order. */
      ties?: unknown[][];
      /** A JSON (non-stream) response body. */
      json?: unknown;
      /** A raw (neither JSON nor JSON Lines) response body, compared exactly. */
      text?: string;
      /** `subset` (default): expected objects give only the keys they check. `exact`: whole objects. */
      match?: 'subset' | 'exact';
      /**
       * Spellings the value comparison cannot see (it takes `1` and `1.0` as equal): at each key
       * path (`$` a JSON body, `$[i]` line i of a stream, then `.key`, `[index]`, `["key"]`) the
       * body's value, as compact JSON with its numbers and key order as the body has them, must
       * equal the text (`{"$[0].inputs.x": "1.0"}`).
       */
      json_texts?: Record<string, string>;
      /** Response headers that must be present (transport-level; see HeaderExpectation). */
      headers?: Record<string, HeaderExpectation>;
    }
  | {
      status: number;
      /** The error body, compared exactly (e.g. {"reason": "..."}). */
      body?: unknown;
      /** Or only which top-level keys the body has (e.g. ["detail"]). */
      body_keys?: string[];
      /** Headers that must be present (see HeaderExpectation). */
      headers?: Record<string, HeaderExpectation>;
    };

/**
 * How binding a case is (spec-tests/suite.json): `must` pins production's exact behaviour,
 * `should` a tq decision where production leaves a choice (tagged `decision`), and
 * `deviates-from-production` a deliberate tq deviation kept and tagged as such.
 */
export type CaseGrade = 'must' | 'should' | 'deviates-from-production';
export const CASE_GRADES: readonly CaseGrade[] = ['must', 'should', 'deviates-from-production'];

export interface ConformanceCase {
  name: string;
  tags: string[];
  /** Filled by the bundler from the tags when a case file leaves it out (see CaseGrade). */
  grade?: CaseGrade;
  /** The Weave source (`wandb/weave@<commit>` or a release) the case encodes; default: the suite's. */
  weave_source?: string;
  /** Other answers that are equally correct (ties, documented backend differences): any one passes. */
  alternatives?: Expect[];
  /**
   * Where the expectation comes from: the docs/semantics.md rules it pins (`semantics.md#<id>`).
   */
  spec: string;
  /** The project this case writes to and reads from (before suffixing). */
  project?: string;
  /** Write requests run in order before the request (each must answer 2xx). */
  setup?: CaseRequest[];
  request: CaseRequest;
  expect: Expect;
}
