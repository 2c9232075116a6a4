/**
 * One catalogue of every error tq can report (fastify's pattern): a stable code, its kind
 * (which picks the error's class), the HTTP status it maps to, and the message. Messages copy
 * the Weave server's wording where a client can see it, because tq is judged against that
 * server. docs/errors.md's table lists the catalogue; errors.test.ts keeps the two equal
 * and checks that every code is raised somewhere.
 *
 * The engine throws `TqError`s only; the HTTP front end turns them into status + JSON body and
 * the CLI into a message on stderr and an exit code. Anything else thrown is a bug (HTTP 500).
 */
import { boundEcho, boundString, DETAIL_MAX_CHARS, ECHO_MAX_CHARS, MAX_ISSUES } from './echo.ts';

/** Where in a request (or file) an error is: JSON path segments, like pydantic's `loc`. */
export type ErrorPath = ReadonlyArray<string | number>;

/** One entry of a 422 body's `detail` list, shaped as FastAPI/pydantic v2 writes it. */
export interface ValidationIssue {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

type MessageArgs = Record<string, string | number>;

/** The longest `reason` an error carries (a reason quoting request values is cut, with `…`). */
export const REASON_MAX_CHARS = 4 * ECHO_MAX_CHARS;

/** Each string argument cut to ECHO_MAX_CHARS, except a `reason`, which the whole-message bound covers. */
function boundArgs(args: MessageArgs): MessageArgs {
  const out: MessageArgs = {};
  for (const [k, v] of Object.entries(args)) out[k] = typeof v === 'string' && k !== 'reason' ? boundString(v) : v;
  return out;
}

/**
 * The kind of an error picks its class (InvalidRequestError, NotFoundError, ...), so the class
 * follows from the code, as Weave's exception types map to statuses.
 */
type ErrorKind = 'schema' | 'invalid' | 'field' | 'auth' | 'permission' | 'notFound' | 'conflict' | 'tooLarge' | 'transport' | 'server';

interface CatalogueEntry {
  kind: ErrorKind;
  status: number;
  message: (args: MessageArgs) => string;
}

const fixed = (text: string) => () => text;

/** The catalogue. Codes are stable: tests, docs and users may rely on them. */
export const ERROR_CATALOGUE = {
  // 422: the body is not JSON or does not fit the request model.
  TQ_REQUEST_SCHEMA: { kind: 'schema', status: 422, message: fixed('Request validation failed') },

  // 400: well-formed request, bad value.
  TQ_INVALID_REQUEST: { kind: 'invalid', status: 400, message: (a) => String(a.reason) },
  TQ_EMPTY_AND: { kind: 'invalid', status: 400, message: fixed('Empty AND operation') },
  TQ_EMPTY_OR: { kind: 'invalid', status: 400, message: fixed('Empty OR operation') },
  TQ_NEGATIVE_LIMIT: { kind: 'invalid', status: 400, message: fixed('Limit must be a positive integer') },
  TQ_NEGATIVE_OFFSET: { kind: 'invalid', status: 400, message: fixed('Offset must be a positive integer') },
  TQ_LIST_TOO_LONG: {
    kind: 'invalid',
    status: 400,
    message: (a) =>
      `Parameter: '${a.name}' request length is greater than max length (${a.max}). Actual length: ${a.length}`,
  },
  TQ_SORT_FIELD_NOT_ALLOWED: { kind: 'invalid', status: 400, message: (a) => `Field ${a.field} is not allowed in ORDER BY` },
  TQ_LITERAL_TYPE: { kind: 'invalid', status: 400, message: (a) => `Unknown value type: ${a.type}` },
  TQ_THREAD_SORT_FIELD: {
    kind: 'invalid',
    status: 400,
    // `supported`: the sortable fields as a Python list (query/threads/sort-fields.ts).
    message: (a) => `Unsupported sort field: ${a.field}. Supported fields: ${a.supported}`,
  },
  TQ_TABLE_SORT_EMPTY: { kind: 'invalid', status: 400, message: fixed('Sort field cannot be empty') },
  TQ_TABLE_SORT_DOTS: {
    kind: 'invalid',
    status: 400,
    message: (a) =>
      `Invalid sort field '${a.field}': field names cannot start/end with dots or contain consecutive dots`,
  },
  TQ_TABLE_SORT_COMPONENT: {
    kind: 'invalid',
    status: 400,
    message: (a) => `Invalid sort field '${a.field}': field path components cannot be empty`,
  },
  TQ_INDEX_OUT_OF_RANGE: { kind: 'invalid', status: 400, message: fixed('Index out of range') },
  TQ_INVALID_MODE: { kind: 'invalid', status: 400, message: fixed('Invalid mode') },
  TQ_TOO_DEEP: { kind: 'invalid', status: 400, message: fixed('Request is nested too deeply') },
  TQ_INVALID_OBJECT_ID: { kind: 'invalid', status: 400, message: (a) => String(a.reason) },
  TQ_INVALID_PROJECT_ID: {
    kind: 'invalid',
    status: 400,
    message: (a) => `Invalid project_id '${a.project}': ${a.reason}`,
  },
  TQ_BODY_TOO_DEEP: {
    kind: 'invalid',
    status: 400,
    message: (a) => `Request body is nested more than ${a.max} levels deep${a.where}`,
  },
  TQ_MISSING_USER_ID: { kind: 'invalid', status: 400, message: fixed('wb_user_id cannot be None') },
  // Weave's CallsCompleteModeRequired: a legacy call write to a project in calls_complete mode
  // (the body also carries `error_code`, which both SDKs read to switch to the v2 routes).
  TQ_CALLS_COMPLETE_MODE_REQUIRED: {
    kind: 'invalid',
    status: 400,
    message: (a) =>
      `The project '${a.project}' has been created in the more performant 'complete' mode. Please upgrade your SDK to at least: 0.52.26 to write to this project.`,
  },
  // Weave's ObjectNameTypeCollision: an object id is bound to one base object class per kind.
  // `object`: the id as Python's repr; `new`, `existing`: "a <class>" or "a generic (untyped) object".
  TQ_OBJECT_NAME_TYPE_COLLISION: {
    kind: 'invalid',
    status: 400,
    message: (a) =>
      `Cannot publish ${a.object} as ${a.new}: that name is already used by ${a.existing} in this project. ` +
      'Object versions cannot share types, publish this object under a different name.',
  },
  // Weave's DigestMismatchError (409): a client-computed expected_digest differs from the server's.
  TQ_EXPECTED_DIGEST_MISMATCH: {
    kind: 'conflict',
    status: 409,
    message: (a) => `Client ${a.label} digest ${a.expected} != server digest ${a.actual}`,
  },
  TQ_TABLE_NOT_FOUND: { kind: 'notFound', status: 404, message: (a) => `Table ${a.project}:${a.digest} not found` },
  TQ_OBJECT_NOT_FOUND: { kind: 'notFound', status: 404, message: (a) => `Obj ${a.object}:${a.digest} not found` },
  // Weave's ObjectDeletedError: the body also carries `deleted_at` (ObjectDeletedError below).
  TQ_OBJECT_DELETED: { kind: 'notFound', status: 404, message: (a) => `${a.object}:v${a.index} was deleted at ${a.when}` },
  // Weave's RefObjectsNotFoundError: a ref read names object digests that do not exist; the body
  // also carries `missing_object_digests` (RefObjectsNotFoundError below). `diff`: a Python set.
  TQ_REF_OBJECTS_NOT_FOUND: {
    kind: 'notFound',
    status: 404,
    message: (a) => `Ref read contains ${a.asked} digests, but found ${a.found} objects. Diff digests: ${a.diff}`,
  },
  // Weave's NotFoundError / ValueError wordings of object deletion, file reads and refs.
  TQ_NOT_FOUND_REASON: { kind: 'notFound', status: 404, message: (a) => String(a.reason) },

  // 422 with `reason`: a field that may not be queried, sorted or selected (the newest error
  // registry maps Weave's InvalidFieldError to 422; older servers answered 403). A 422 with
  // `detail` is a request-schema error instead.
  TQ_FIELD_NOT_ALLOWED: { kind: 'field', status: 422, message: (a) => `Field ${a.field} is not allowed` },
  TQ_SUMMARY_FIELD_NOT_ALLOWED: {
    kind: 'field',
    status: 422,
    // `supported`: the computed summary fields, listed (query/calls/summary-fields.ts).
    message: (a) => `Summary field '${a.field}' is not allowed. Supported fields are: ${a.supported}`,
  },

  // Auth.
  TQ_UNAUTHENTICATED: { kind: 'auth', status: 401, message: (a) => String(a.reason) },
  TQ_PROJECT_FORBIDDEN: {
    kind: 'permission',
    status: 403,
    message: (a) => `User '${a.user}' has no access to project '${a.project}'`,
  },

  // Transport.
  TQ_NOT_FOUND: { kind: 'transport', status: 404, message: (a) => String(a.reason) },
  TQ_METHOD_NOT_ALLOWED: { kind: 'transport', status: 405, message: fixed('Method Not Allowed') },
  TQ_REQUEST_TOO_LARGE: { kind: 'transport', status: 413, message: fixed('Request too large') },
  TQ_DELETE_TOO_MANY: { kind: 'tooLarge', status: 413, message: (a) => `Cannot delete more than ${a.max} calls at once` },
  TQ_REQUEST_TIMEOUT: { kind: 'transport', status: 408, message: (a) => `Request not received within ${a.seconds} s` },
  TQ_MALFORMED_HTTP: { kind: 'transport', status: 400, message: fixed('Bad Request') },
  TQ_HEADERS_TOO_LARGE: { kind: 'transport', status: 431, message: fixed('Request header fields too large') },
  TQ_INTERNAL: { kind: 'server', status: 500, message: fixed('Internal server error') },
  // `tq serve` fault injection (Prefer: code=N); the status is the one asked for.
  TQ_INJECTED: { kind: 'server', status: 503, message: (a) => `Injected error: Prefer: code=${a.status}` },
  // 503: tq serve --data could not make a write durable (disk full, I/O error, read-only DIR).
  TQ_JOURNAL_UNAVAILABLE: {
    kind: 'server',
    status: 503,
    message: (a) => `Write not acknowledged: the journal could not be written (${a.cause}); reads still work`,
  },

  // 503 with Retry-After: tq serve is reading and processing as many body bytes as it allows at
  // once (--max-body-bytes-in-flight, src/server/body-budget.ts); answered before the body is read.
  TQ_SERVER_BUSY: {
    kind: 'server',
    status: 503,
    message: (a) => `Server busy: request bodies being read and processed at once would pass ${a.max} bytes; retry after ${a.seconds} s`,
  },

  // OTLP trace ingest (POST /otel/v1/traces, src/otel/): checked before anything is written.
  TQ_OTLP_CONTENT_TYPE: {
    kind: 'invalid',
    status: 415,
    message: (a) => `Unsupported Content-Type '${a.type}': send application/x-protobuf (or application/json, a tq extension)`,
  },
  TQ_OTLP_CONTENT_ENCODING: {
    kind: 'invalid',
    status: 415,
    message: (a) => `Unsupported Content-Encoding '${a.encoding}': send gzip, deflate or identity`,
  },
  TQ_OTLP_BAD_COMPRESSION: { kind: 'invalid', status: 400, message: (a) => `Body is not valid ${a.encoding} data: ${a.cause}` },
  TQ_OTLP_DECOMPRESSED_TOO_LARGE: {
    kind: 'tooLarge',
    status: 413,
    message: (a) => `Body decompresses to more than ${a.max} bytes`,
  },
  TQ_OTLP_INVALID: { kind: 'invalid', status: 400, message: (a) => `Invalid OTLP trace export: ${a.reason}` },
  TQ_OTLP_NO_PROJECT: {
    kind: 'invalid',
    status: 400,
    message: (a) =>
      `No project for resourceSpans[${a.index}]: set the resource attributes wandb.entity and wandb.project, or send a project_id header`,
  },
  // A span whose op object name holds ':' (production's InternalOpRef validation, a ValueError).
  TQ_OTLP_OP_NAME: { kind: 'invalid', status: 400, message: () => "name cannot contain ':'" },
} satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The codes of one kind. */
type CodeOf<K extends ErrorKind> = { [C in ErrorCode]: (typeof ERROR_CATALOGUE)[C]['kind'] extends K ? C : never }[ErrorCode];

/**
 * Base class of every error the engine reports on purpose: a catalogue code, its status and
 * message, and where the offending value is. Not constructed directly: the subclass of the
 * code's kind is (`tqError(code)` picks it), so `e instanceof NotFoundError` is true exactly for
 * the not-found codes.
 */
export abstract class TqError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Where the offending value is, when it is somewhere in particular. */
  readonly path: ErrorPath | undefined;

  protected constructor(code: ErrorCode, args: MessageArgs = {}, path?: ErrorPath) {
    const entry: CatalogueEntry = ERROR_CATALOGUE[code];
    // Every echo is bounded, as a 422's is: each value named in the message (a 10 MB object_id
    // must not make a 10 MB 404), and the whole reason, whose text may quote request values.
    super(boundString(entry.message(boundArgs(args)), REASON_MAX_CHARS));
    this.name = new.target.name;
    this.code = code;
    this.status = entry.status;
    this.path = path;
  }

  /** The JSON body a server sends for this error. */
  body(): Record<string, unknown> {
    return { reason: this.message };
  }
}

/** 422: the request does not fit the model (FastAPI's `{"detail": [...]}` body). */
export class RequestSchemaError extends TqError {
  readonly issues: ValidationIssue[];
  constructor(issues: ValidationIssue[]) {
    super('TQ_REQUEST_SCHEMA', {}, issues[0]?.loc);
    // Echoes are bounded (src/core/echo.ts): a huge bad value must not make a huger error.
    this.issues = boundIssues(issues);
    this.message = this.issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
  }
  override body(): Record<string, unknown> {
    return { detail: this.issues };
  }
}

/** 400: a well-formed request with a value the server will not take. */
export class InvalidRequestError extends TqError {
  constructor(code: CodeOf<'invalid'>, args?: MessageArgs, path?: ErrorPath) {
    super(code, args, path);
  }
}

/**
 * 400 for a legacy call write (`/call/start`, `/call/end`, `/call/upsert_batch`) to a project in
 * calls_complete mode: production's body, `{"reason": ..., "error_code": "CALLS_COMPLETE_MODE_REQUIRED"}`.
 */
export class CallsCompleteModeRequiredError extends InvalidRequestError {
  constructor(projectId: string) {
    super('TQ_CALLS_COMPLETE_MODE_REQUIRED', { project: projectId });
  }
  override body(): Record<string, unknown> {
    return { reason: this.message, error_code: 'CALLS_COMPLETE_MODE_REQUIRED' };
  }
}

/** 422 (with `reason`): a field that may not be queried, sorted or selected. */
export class InvalidFieldError extends TqError {
  constructor(code: CodeOf<'field'>, args?: MessageArgs, path?: ErrorPath) {
    super(code, args, path);
  }
}

/** 404: a table, object, file or ref that does not exist. */
export class NotFoundError extends TqError {
  constructor(code: CodeOf<'notFound'>, args?: MessageArgs, path?: ErrorPath) {
    super(code, args, path);
  }
}

/** 404 for a deleted object version, with its deletion time as Weave reports it. */
export class ObjectDeletedError extends NotFoundError {
  constructor(
    args: { object: string; index: number; when: string },
    readonly deletedAt: string,
  ) {
    super('TQ_OBJECT_DELETED', args);
  }
  override body(): Record<string, unknown> {
    return { reason: this.message, deleted_at: this.deletedAt };
  }
}

/** 404 for a ref read naming object digests that do not exist, listing them as Weave does. */
export class RefObjectsNotFoundError extends NotFoundError {
  constructor(
    args: { asked: number; found: number; diff: string },
    readonly missingObjectDigests: readonly string[],
  ) {
    super('TQ_REF_OBJECTS_NOT_FOUND', args);
  }
  override body(): Record<string, unknown> {
    return { reason: this.message, missing_object_digests: [...this.missingObjectDigests] };
  }
}

/** 409: a digest the client computed differs from the server's (Weave's DigestMismatchError). */
export class DigestMismatchError extends TqError {
  constructor(code: CodeOf<'conflict'>, args?: MessageArgs, path?: ErrorPath) {
    super(code, args, path);
  }
}

/** 413: a request asking for more than the server does at once (Weave's RequestTooLarge). */
export class RequestTooLargeError extends TqError {
  constructor(code: CodeOf<'tooLarge'>, args?: MessageArgs, path?: ErrorPath) {
    super(code, args, path);
  }
}

/** 401: missing or wrong credentials. */
export class AuthenticationError extends TqError {
  constructor(reason: string) {
    super('TQ_UNAUTHENTICATED', { reason });
  }
}

/** 403: valid credentials without a grant on the project. */
export class PermissionDeniedError extends TqError {
  constructor(code: CodeOf<'permission'>, args?: MessageArgs, path?: ErrorPath) {
    super(code, args, path);
  }
}

/** 404 / 405 / 408 / 413 / 431 / 400: transport-level errors of the HTTP front end. */
export class TransportError extends TqError {
  constructor(code: CodeOf<'transport'>, args?: MessageArgs, path?: ErrorPath) {
    super(code, args, path);
  }
}

/** 5xx: the server could not answer (a bug, an injected fault, a journal it cannot write). */
export class ServerError extends TqError {
  constructor(code: CodeOf<'server'>, args?: MessageArgs, path?: ErrorPath) {
    super(code, args, path);
  }
}

/** The codes whose error takes more than message arguments (issues, a deletion time, a reason). */
type DedicatedCode = 'TQ_REQUEST_SCHEMA' | 'TQ_OBJECT_DELETED' | 'TQ_UNAUTHENTICATED' | 'TQ_CALLS_COMPLETE_MODE_REQUIRED';

const CLASS_OF_KIND: { [K in Exclude<ErrorKind, 'schema' | 'auth'>]: new (code: CodeOf<K>, args?: MessageArgs, path?: ErrorPath) => TqError } = {
  invalid: InvalidRequestError,
  field: InvalidFieldError,
  notFound: NotFoundError,
  conflict: DigestMismatchError,
  tooLarge: RequestTooLargeError,
  permission: PermissionDeniedError,
  transport: TransportError,
  server: ServerError,
};

/** The error for `code`, of the class its kind names. */
export function tqError(code: Exclude<ErrorCode, DedicatedCode>, args: MessageArgs = {}, path?: ErrorPath): TqError {
  const kind = ERROR_CATALOGUE[code].kind as keyof typeof CLASS_OF_KIND;
  const Class = CLASS_OF_KIND[kind] as new (code: ErrorCode, args?: MessageArgs, path?: ErrorPath) => TqError;
  return new Class(code, args, path);
}

/** The issues a 422 lists: each echo bounded, and no more than DETAIL_MAX_CHARS of them in all. */
function boundIssues(issues: ValidationIssue[]): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  let chars = 0;
  for (const issue of issues.slice(0, MAX_ISSUES)) {
    const bounded = boundIssue(issue);
    chars += JSON.stringify(bounded).length;
    if (out.length > 0 && chars > DETAIL_MAX_CHARS) break;
    out.push(bounded);
  }
  return out;
}

function boundIssue(issue: ValidationIssue): ValidationIssue {
  const out: ValidationIssue = { ...issue, loc: issue.loc.map((part) => (typeof part === 'string' ? boundString(part) : part)) };
  if ('input' in issue) out.input = boundEcho(issue.input);
  return out;
}

/** A malformed fixture file: an operational error (core/operational-errors.ts), never an HTTP one (500 if it ever leaks). */
export { FixtureError } from './operational-errors.ts';

// Constructors for the codes used in many places, so call sites read as sentences.
export const invalidRequest = (code: CodeOf<'invalid'>, args: MessageArgs = {}, path?: ErrorPath) =>
  new InvalidRequestError(code, args, path);
export const fieldNotAllowed = (field: string, path?: ErrorPath) =>
  new InvalidFieldError('TQ_FIELD_NOT_ALLOWED', { field }, path);
