/**
 * `tq serve`: load the fixtures, then serve every route over HTTP with Basic auth
 * (semantics.md#auth-401, semantics.md#errors-transport, semantics.md#auth-basic) until
 * SIGINT/SIGTERM, which closes gracefully (in-flight streams finish; a second signal cuts them).
 */
import { Command } from 'commander';
import { allRoutes } from '../routes.ts';
import { CredentialsError, DEFAULT_USER, resolveUsers } from '../server/credentials.ts';
import { createTqServer, DEFAULT_MAX_BODY_BYTES, defaultMaxBodyBytesInFlight } from '../server/server.ts';
import { UsersFileError } from '../server/users-file.ts';
import { openServedData } from './serve-data.ts';
import { probeListen } from './port-probe.ts';
import { dataOptions, intOption, loadEngine, paint, parsePrefix, say, snapshotOptions, UsageError } from './common.ts';
import { resolveFixturesPath } from '../io/load-fixtures.ts';
import { corsEnabled } from '../server/cors.ts';
import { createInjector, parseDelayRange } from '../server/inject.ts';
import { requestLogger, type LogFormat } from '../server/request-log.ts';
import { createReloader } from './reload.ts';
import { loadViewerAssets } from '../server/viewer-assets.ts';
import { bannerLines } from './serve-banner.ts';
import { stderrIsTerminal } from './tty.ts';
import { ECHO_MAX_CHARS, MAX_ISSUES } from '../core/echo.ts';
import { MAX_BODY_DEPTH } from '../core/json/depth.ts';
import { parseSocketLimits, socketLimitOptions, type SocketLimitOptions } from './serve-limits.ts';
import { readFileSync } from 'node:fs';
import { graphqlRoute } from '../server/graphql-handshake.ts';
import { callsCompleteCheck, type CallsMode } from '../server/weave-compat.ts';

interface ServeOptions extends SocketLimitOptions {
  fixtures?: string;
  data?: string;
  compactAt?: string;
  fieldPrefix?: string;
  snapshot?: boolean;
  host: string;
  port: string;
  users?: string;
  user?: string;
  password?: string;
  cors?: boolean;
  corsOrigin?: string[];
  log?: boolean | string;
  quiet?: boolean;
  watch?: boolean;
  delay?: string;
  maxBodyBytes: string;
  maxBodyBytesInFlight?: string;
  tlsCert?: string;
  tlsKey?: string;
  entity?: string;
  callsMode: string;
  callsComplete: string[];
  testControl?: boolean;
}

/** `--tls-cert FILE --tls-key FILE` (both or neither), read before anything loads. */
function tlsOption(opts: ServeOptions): { cert: Buffer; key: Buffer } | undefined {
  if (opts.tlsCert === undefined && opts.tlsKey === undefined) return undefined;
  if (opts.tlsCert === undefined || opts.tlsKey === undefined) throw new UsageError('--tls-cert and --tls-key go together');
  const read = (flag: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (e) {
      throw new UsageError(`${flag}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  };
  return { cert: read('--tls-cert', opts.tlsCert), key: read('--tls-key', opts.tlsKey) };
}

function callsModeOption(opts: ServeOptions): ((projectId: string) => void) | undefined {
  if (opts.callsMode !== 'legacy' && opts.callsMode !== 'complete') throw new UsageError(`--calls-mode: must be legacy or complete, got '${opts.callsMode}'`);
  try {
    return callsCompleteCheck(opts.callsMode as CallsMode, opts.callsComplete);
  } catch (e) {
    throw new UsageError(`--calls-complete: ${(e as Error).message}`);
  }
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** The request log format, or undefined for none: on a terminal by default, `--log [text|json]`, `--quiet`. */
function logFormatOf(opts: ServeOptions): LogFormat | undefined {
  if (opts.quiet && opts.log !== undefined) throw new UsageError('--quiet: cannot be combined with --log');
  if (opts.quiet) return undefined;
  if (opts.log === true || opts.log === 'text') return 'text';
  if (opts.log === 'json') return 'json';
  if (opts.log !== undefined) throw new UsageError(`--log: format must be text or json, got '${opts.log}'`);
  return stderrIsTerminal() ? 'text' : undefined;
}

function delayOption(text: string | undefined) {
  if (text === undefined) return undefined;
  const range = parseDelayRange(text);
  if (typeof range === 'string') throw new UsageError(`--delay: ${range}`);
  return range;
}

function portOption(text: string): number {
  const port = intOption('--port', text);
  if (port < 0 || port > 65535) throw new UsageError(`--port: must be between 0 and 65535, got ${port}`);
  return port;
}

function maxBodyOption(text: string): number {
  const n = intOption('--max-body-bytes', text);
  if (n < 1) throw new UsageError(`--max-body-bytes: must be positive, got ${n}`);
  return n;
}

/** `--max-body-bytes-in-flight N`: at least one body of the largest size must fit. */
function maxBodyInFlightOption(text: string | undefined, maxBodyBytes: number): number {
  if (text === undefined) return defaultMaxBodyBytesInFlight(maxBodyBytes);
  const n = intOption('--max-body-bytes-in-flight', text);
  if (n < maxBodyBytes) throw new UsageError(`--max-body-bytes-in-flight: must be at least --max-body-bytes (${maxBodyBytes}), got ${n}`);
  return n;
}

/** `--compact-at MB` (with --data only) in bytes. */
function compactAtOption(text: string, data: string | undefined): number {
  if (data === undefined) throw new UsageError('--compact-at needs --data DIR');
  const mb = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || mb <= 0) throw new UsageError(`--compact-at must be a positive number of megabytes, got '${text}'`);
  return Math.round(mb * 1e6);
}

const urlOf = (scheme: string, host: string, port: number) => `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;

/** Resolves on the first SIGINT/SIGTERM; a second one calls `force`. */
function untilSignal(force: () => void): { stopped: Promise<string>; dispose: () => void } {
  let signals = 0;
  let resolve!: (signal: string) => void;
  const stopped = new Promise<string>((r) => (resolve = r));
  const onSignal = (signal: string) => {
    signals++;
    if (signals === 1) resolve(signal);
    else force();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    stopped,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** A failure to listen as the user can act on it: the port in use, or a host not of this machine. */
function listenError(e: unknown, host: string, port: number): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return new UsageError(`port ${port} on ${host} is in use; choose another with --port`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new UsageError(`cannot listen on host '${host}' (${code})`);
  return e;
}

async function serve(opts: ServeOptions): Promise<void> {
  // Every usage mistake is reported before the (possibly long) fixture load.
  const fieldPrefix = parsePrefix(opts.fieldPrefix);
  const port = portOption(opts.port);
  const maxBodyBytes = maxBodyOption(opts.maxBodyBytes);
  const maxBodyBytesInFlight = maxBodyInFlightOption(opts.maxBodyBytesInFlight, maxBodyBytes);
  const logFormat = logFormatOf(opts);
  const delay = delayOption(opts.delay);
  const socketLimits = parseSocketLimits(opts);
  const tls = tlsOption(opts);
  const assertLegacyCallWrite = callsModeOption(opts);
  if (opts.entity !== undefined && (opts.entity === '' || /[/\s*]/.test(opts.entity))) throw new UsageError(`--entity: an entity name has no '/', '*' or spaces, got '${opts.entity}'`);
  // The control plane answers without credentials and wipes data: never on a reachable address.
  if (opts.testControl && !LOOPBACK.has(opts.host)) throw new UsageError(`--test-control: only on a loopback --host (127.0.0.1, ::1, localhost), got '${opts.host}'`);
  let resolved;
  try {
    resolved = resolveUsers({ usersFile: opts.users, user: opts.user, password: opts.password, env: process.env });
  } catch (e) {
    if (e instanceof CredentialsError || e instanceof UsersFileError) throw new UsageError(e.message);
    throw e;
  }

  if (opts.data !== undefined && opts.fixtures !== undefined) throw new UsageError('give --data or --fixtures, not both (a data directory holds its own fixtures)');
  if (opts.data !== undefined && opts.watch) throw new UsageError('--watch reloads fixture files; with --data the journal holds the writes, so the two do not combine');
  const compactAt = opts.compactAt === undefined ? undefined : compactAtOption(opts.compactAt, opts.data);
  // Every body a snapshot restores is read and checked before serving (cache.ts, readBodies).
  const snapshot = { ...snapshotOptions(opts), readBodies: true };
  await probeListen(opts.host, port).catch((e: unknown) => {
    throw listenError(e, opts.host, port);
  });
  const data = opts.data !== undefined ? await openServedData(opts.data, fieldPrefix, say, compactAt, snapshot) : undefined;
  // With --data the directory holds the fixtures; otherwise they are resolved as for every command.
  const fixtures = data === undefined ? resolveFixturesPath(opts.fixtures, process.env, process.cwd()) : undefined;
  const engine = data?.engine ?? (await loadEngine({ fixtures, fieldPrefix, snapshot: snapshot.enabled, readBodies: true }));
  const tq = createTqServer({
    writes: data?.writes,
    engine,
    routes: [...allRoutes(), graphqlRoute({ defaultEntity: opts.entity })],
    users: resolved.users,
    tls,
    testControl: opts.testControl,
    assertLegacyCallWrite,
    maxBodyBytes,
    maxBodyBytesInFlight,
    socketLimits,
    cors: corsEnabled(opts.host, opts.cors),
    corsOrigins: opts.corsOrigin ?? [],
    log: opts.quiet ? undefined : say,
    requestLog: logFormat ? requestLogger(logFormat, say) : undefined,
    inject: createInjector(delay),
    // TQ_VIEWER_DIR: a viewer built elsewhere (node scripts/build-viewer.mjs DIR), for work on ui/.
    viewer: loadViewerAssets(process.env.TQ_VIEWER_DIR || undefined),
  });
  let address: { host: string; port: number };
  try {
    address = await tq.listen(opts.host, port);
  } catch (e) {
    await data?.close();
    throw listenError(e, opts.host, port);
  }

  if (resolved.generated) {
    const { user, password } = resolved.generated;
    say(`${paint.yellow('no users configured')}: generated credentials for this run (use --users, --user/--password or TQ_USER/TQ_PASSWORD to choose)`);
    say(`  user:     ${user}`);
    say(`  password: ${password}`);
  }
  say(data?.banner ?? 'in memory: writes last until this process exits (keep them with --data DIR)');
  const bannerUser = resolved.generated?.user ?? opts.user ?? (process.env.TQ_USER || (opts.users ? '<user>' : DEFAULT_USER));
  // One write, so a reader of stderr sees the banner whole.
  const url = urlOf(tls ? 'https' : 'http', address.host, address.port);
  say(bannerLines({ url, user: bannerUser, generatedPassword: resolved.generated?.password, fieldPrefix, store: engine.store, tlsCert: opts.tlsCert }).join('\n'));
  // The line trace_server_mock prints, which SDK test drivers wait for on stdout.
  if (opts.testControl) process.stdout.write(`READY=${url}\n`);

  // SIGHUP (and --watch) reload the fixtures; the server keeps serving the old data meanwhile.
  // With --data a reload from the fixture files would drop journaled writes: SIGHUP only says so.
  const reloader = fixtures === undefined ? undefined : createReloader({ path: fixtures, load: () => loadEngine({ fixtures, fieldPrefix, snapshot: snapshot.enabled, readBodies: true }), swap: (next) => tq.swapEngine(next), log: say });
  const onHangup = reloader === undefined ? () => say('tq: SIGHUP ignored: reload is not available with --data') : () => void reloader.reload('SIGHUP');
  process.on('SIGHUP', onHangup);
  const stopWatching = opts.watch && reloader ? reloader.watch() : () => {};
  if (opts.watch) say(`tq: watching ${fixtures} for changes`);

  const signals = untilSignal(() => {
    say('tq: closing open connections');
    tq.server.closeAllConnections();
  });
  const signal = await signals.stopped;
  say(`tq: ${signal}: finishing in-flight requests (send it again to cut them)`);
  stopWatching();
  process.off('SIGHUP', onHangup);
  await tq.close();
  await data?.close();
  signals.dispose();
  say('tq: stopped');
}

/** Every served path, wrapped to the help width. */
function endpointList(): string {
  const lines: string[] = [];
  let line = ' ';
  for (const r of allRoutes()) {
    const item = ` ${r.method === 'GET' ? 'GET ' : ''}${r.path}`;
    if (line.length + item.length > 92) {
      lines.push(line);
      line = ' ';
    }
    line += item;
  }
  return [...lines, line].join('\n');
}

export function serveCommand(): Command {
  const cmd = dataOptions(new Command('serve'))
    .description('serve the HTTP API (Weave trace-server paths, Basic auth) over the loaded fixtures')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0: any free port)', '6345')
    .option('--users <file>', 'users file: {"users":[{"name":"alice","password":"...","projects":["acme/*","x/y"]}]}')
    .option('--user <name>', `a single user with access to every project (default name: ${DEFAULT_USER}; or TQ_USER)`)
    .option('--password <password>', "that user's password (or TQ_PASSWORD, which keeps it out of `ps`)")
    .option('--cors', 'answer CORS preflights for browser clients on this machine (loopback origins; default on a loopback --host)')
    .option('--cors-origin <origin>', 'also allow this browser origin (exact, e.g. https://ui.example:8443); repeatable', (v: string, prev: string[] = []) => [...prev, v])
    .option('--no-cors', 'no CORS headers, even on a loopback --host')
    .option('--log [format]', 'log every request to stderr as text or json (JSON Lines); default: text on a terminal')
    .option('--quiet', 'no request log, no internal-error stacks (the start-up banner and reload lines remain)')
    .option('--watch', 'reload the fixture files once a change has settled (size steady, last line whole); SIGHUP reloads at once')
    .option('--delay <ms[-ms]>', 'delay every response by MS, or uniformly MIN-MAX, milliseconds (latency injection)')
    .option('--compact-at <MB>', 'with --data: compact the journal into the fixture files in the background once it reaches MB megabytes')
    .option('--max-body-bytes <n>', 'largest request body accepted (larger: 413)', String(DEFAULT_MAX_BODY_BYTES))
    .option('--max-body-bytes-in-flight <n>', 'body bytes read and processed at once, all connections together (beyond: 503 + Retry-After); default 4 x --max-body-bytes')
    .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (with --tls-key); clients trust it via NODE_EXTRA_CA_CERTS')
    .option('--tls-key <file>', 'the PEM private key of --tls-cert')
    .option('--entity <name>', "the default entity /graphql reports (weave.init('project') writes to <name>/project); default: the user's name")
    .option('--calls-mode <mode>', 'legacy (default) or complete: every project in calls_complete mode (legacy call writes answer 400)', 'legacy')
    .option('--calls-complete <proj>', 'a project (entity/project, entity/*) in calls_complete mode; repeatable', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--test-control', "serve Weave's mock control plane without credentials (/test/health, /test/getCalls, /test/reset) and print READY=<url> on stdout; loopback only")
    .addHelpText(
      'after',
      `
Endpoints (POST, JSON bodies, unless marked):
${endpointList()}

Every request but GET /health needs Authorization: Basic base64(user:password) or Bearer <token>
(a user's "tokens" in the users file, or the password of user "api"). POST /graphql answers the
Weave SDKs' handshake (docs/local-weave-server.md); /traces/<path> is served as /<path>. A grant in
the users file is "entity/project", "entity/*" or "*". With no users configured, a user
"${DEFAULT_USER}" with a random password is created and its credentials printed at start-up.

CORS is on for a loopback --host (browsers on this machine) and off for any other address
unless --cors. A request may ask for a fault: \`Prefer: code=503\` answers it with that status
(400-599), \`Prefer: delay=200\` delays it (ms; both may be combined). SIGHUP reloads the
fixtures: requests already running finish on the old data; a bad file keeps the old data.

Limits: a body over --max-body-bytes is a 413 (one that does not fit in --max-body-bytes-in-flight
beside the others being read and processed, a 503 with Retry-After), one nested more than ${MAX_BODY_DEPTH} levels a 400;
a 422 repeats at most ${ECHO_MAX_CHARS} characters of each bad value and lists ${MAX_ISSUES} problems at most.

Examples:
  tq serve --fixtures ./fixtures --watch
  TQ_PASSWORD=secret tq serve --port 8080 --field-prefix wb_      # Weave SDK: WANDB_API_KEY=secret
  tq serve --users users.json --host 0.0.0.0 --cors --log json
  tq serve --delay 50-300 --quiet
  curl -s -u api:secret -H 'Prefer: code=503' http://127.0.0.1:6345/calls/stream_query -d '{"project_id":"a/b"}'
  tq serve --data ./traces        # durable: writes journaled and fsync'd in ./traces before the 2xx`,
    )
    .action(async (opts: ServeOptions) => {
      await serve(opts);
    });
  return socketLimitOptions(cmd);
}
