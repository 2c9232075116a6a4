/**
 * tq as a library (`import { createEngine, ... } from 'tq-trace-query'`): the engine, fixture
 * loading from files, strings and streams, every route by path, and the conformance runner.
 * The CLI and the server are built from these same pieces, so a library caller gets the
 * answers `tq calls` and `tq serve` give.
 */

// The engine and its contract.
export { createEngine } from './engine.ts';
export { Store } from './store/store.ts';
export type { Engine, EngineOptions, FieldPrefix, RequestBody, RequestContext, Route, RouteResult, StreamResult } from './api/types.ts';

// Running routes: by path with a body text (as a client sends it), or a Route object.
export { runRoute } from './api/run-route.ts';
export { runPath } from './run-path.ts';
export { allRoutes, findRoute } from './routes.ts';
export { TQ_VERSION } from './version.ts';
export { fullAccessContext } from './api/context.ts';

// Errors: every request error is a TqError (HTTP status, stable code, JSON body).
export {
  AuthenticationError,
  DigestMismatchError,
  ERROR_CATALOGUE,
  FixtureError,
  InvalidFieldError,
  InvalidRequestError,
  NotFoundError,
  ObjectDeletedError,
  PermissionDeniedError,
  RequestSchemaError,
  RequestTooLargeError,
  ServerError,
  TqError,
  TransportError,
  type ErrorCode,
} from './core/errors.ts';

// Fixtures: a directory or calls file, or one kind's JSON Lines from a string or stream.
export {
  BUNDLED_FIXTURES,
  FIXTURE_KINDS,
  loadFixtures,
  loadFixtureText,
  resolveFixturesPath,
  type FixtureKind,
  type LoadProgress,
  type LoadReport,
} from './io/load-fixtures.ts';

// The HTTP server in-process, for test set-ups: serve({ port: 0 }) → { url, authorization, close }.
export { serve, type RunningServer, type ServeOptions } from './server/embedded.ts';

// Conformance: the bundled cases, run in-process or against any server over HTTP.
export { BUNDLED_CASES_FILE, loadCases, loadSuite, type Suite } from './check/corpus.ts';
export { formatReport, runCase, runCases, type RunOptions, type RunReport } from './check/runner.ts';
export { createEngineTarget, type EngineTargetOptions } from './check/engine-target.ts';
export { createHttpTarget, type HttpTargetOptions, type UserCredentials } from './check/http-target.ts';
export type { Target, TargetResponse } from './check/target.ts';
export type { CaseRequest, ConformanceCase, Expect } from './check/case.ts';
