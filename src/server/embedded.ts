/**
 * `serve()`: tq serve in-process, for test set-ups (as json-server's `create()` or Prism's
 * programmatic server): one call gives a listening server on a free port, its URL, and the
 * credentials to use, with the same routes, authentication and answers as `tq serve`.
 */
import { randomBytes } from 'node:crypto';
import type { Engine, FieldPrefix } from '../api/types.ts';
import { createEngine } from '../engine.ts';
import { loadFixtures } from '../io/load-fixtures.ts';
import { allRoutes } from '../routes.ts';
import { basicAuthorization } from '../check/http-target.ts';
import { Users, type UserSpec } from './basic-auth.ts';
import { createTqServer } from './server.ts';

export interface ServeOptions {
  /** Default 0: a free port, chosen by the system. */
  port?: number;
  /** Default 127.0.0.1 (never all interfaces unless asked). */
  host?: string;
  /** The engine to serve; default a fresh one (with `fieldPrefix`). */
  engine?: Engine;
  /** Fixtures to load into that fresh engine first: a directory or calls file (BUNDLED_FIXTURES for the demo). */
  fixtures?: string;
  /** Wire spelling of user/run fields for the fresh engine; default svc_. */
  fieldPrefix?: FieldPrefix;
  /** Users and their grants; default one user `tq` with a random password, granted every project. */
  users?: UserSpec[];
  /** CORS headers and preflights, as `tq serve --cors`. */
  cors?: boolean;
}

export interface RunningServer {
  /** e.g. `http://127.0.0.1:41235` (no trailing slash). */
  url: string;
  host: string;
  port: number;
  engine: Engine;
  /** The first user, and its `Authorization` header value (Basic). */
  user: { name: string; password: string };
  authorization: string;
  /** Stops the server; in-flight requests finish first. */
  close(): Promise<void>;
}

export async function serve(options: ServeOptions = {}): Promise<RunningServer> {
  if (options.engine !== undefined && (options.fixtures !== undefined || options.fieldPrefix !== undefined)) {
    throw new TypeError('serve: give engine, or fixtures/fieldPrefix for a fresh engine, not both');
  }
  const engine = options.engine ?? createEngine(undefined, { fieldPrefix: options.fieldPrefix ?? 'svc_' });
  if (options.fixtures !== undefined) await loadFixtures(engine, options.fixtures);
  const specs = options.users ?? [{ name: 'tq', password: randomBytes(12).toString('base64url'), projects: ['*'] }];
  if (specs.length === 0) throw new TypeError('serve: users must name at least one user');
  const server = createTqServer({ engine, routes: allRoutes(), users: new Users(specs), cors: options.cors ?? false });
  const { host, port } = await server.listen(options.host ?? '127.0.0.1', options.port ?? 0);
  const user = { name: specs[0].name, password: specs[0].password };
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${urlHost}:${port}`, host, port, engine, user, authorization: basicAuthorization(user.name, user.password), close: () => server.close() };
}
