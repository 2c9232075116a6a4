/**
 * A Target that sends cases to a running server over HTTP (Node's global fetch). It knows two
 * users: the main one (granted every case project) and `other` (valid, but with no grant on
 * case projects), and can send no credentials, a wrong password, or a verbatim header.
 */
import type { FieldPrefix } from '../api/types.ts';
import type { CaseAuth, CaseRequest, ConformanceCase } from './case.ts';
import type { Target, TargetResponse } from './target.ts';
import { otlpRequestBytes, otlpResponseJson, PROTOBUF_TYPE } from './otlp-request.ts';

export interface UserCredentials {
  name: string;
  password: string;
}

export interface HttpTargetOptions {
  /** e.g. `http://127.0.0.1:8080` (a trailing slash is removed). */
  baseUrl: string;
  user: UserCredentials;
  other: UserCredentials;
  fieldPrefix?: FieldPrefix;
  /** Per-request timeout; default 30 s. */
  timeoutMs?: number;
}

export function basicAuthorization(name: string, password: string): string {
  return `Basic ${Buffer.from(`${name}:${password}`, 'utf8').toString('base64')}`;
}

function authorizationFor(auth: CaseAuth, opts: HttpTargetOptions): string | undefined {
  if (auth === 'user') return basicAuthorization(opts.user.name, opts.user.password);
  if (auth === 'other') return basicAuthorization(opts.other.name, opts.other.password);
  if (auth === 'none') return undefined;
  if (auth === 'wrong-password') return basicAuthorization(opts.user.name, `${opts.user.password}-wrong`);
  return auth.header;
}

function requestBody(req: CaseRequest): { body?: string | FormData | Uint8Array; contentType?: string } {
  if (req.otlp !== undefined) return { body: otlpRequestBytes(req.otlp), contentType: PROTOBUF_TYPE };
  if (req.multipart !== undefined) {
    const form = new FormData();
    for (const [name, value] of Object.entries(req.multipart)) {
      if (typeof value === 'string') form.append(name, value);
      else form.append(name, new Blob([value.file], { type: 'application/octet-stream' }), 'blob');
    }
    return { body: form }; // fetch sets the multipart content type with its boundary
  }
  if (req.body_text !== undefined) return { body: req.body_text, contentType: 'application/json' };
  if (req.body !== undefined) return { body: JSON.stringify(req.body), contentType: 'application/json' };
  return {};
}

const JSONL_TYPES = ['application/jsonl', 'application/x-ndjson', 'application/jsonlines'];

/** Parses a body by its content type: JSON Lines into lines, anything else as JSON if it parses. */
export function parseResponseBody(contentType: string, text: string): Pick<TargetResponse, 'lines' | 'json' | 'text' | 'raw'> {
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (JSONL_TYPES.includes(type)) {
    const lines: unknown[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        lines.push(JSON.parse(line));
      } catch {
        return { text };
      }
    }
    return { lines, raw: text };
  }
  if (text === '') return {};
  try {
    return { json: JSON.parse(text), raw: text };
  } catch {
    return { text };
  }
}

export function createHttpTarget(opts: HttpTargetOptions): Target {
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  return {
    name: baseUrl,
    fieldPrefix: opts.fieldPrefix ?? 'svc_',
    user: opts.user.name,
    skipReason: (_c: ConformanceCase) => undefined,
    async send(req: CaseRequest): Promise<TargetResponse> {
      const headers: Record<string, string> = {};
      const authorization = authorizationFor(req.auth ?? 'user', opts);
      if (authorization !== undefined) headers.authorization = authorization;
      const { body, contentType } = requestBody(req);
      if (contentType !== undefined) headers['content-type'] = contentType;
      for (const [name, value] of Object.entries(req.headers ?? {})) headers[name.toLowerCase()] = value;
      const res = await fetch(`${baseUrl}${req.path}`, {
        method: req.method ?? 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
      });
      const responseHeaders: Record<string, string> = {};
      res.headers.forEach((value, name) => {
        responseHeaders[name.toLowerCase()] = value;
      });
      if ((res.headers.get('content-type') ?? '').split(';')[0].trim() === PROTOBUF_TYPE) {
        return { status: res.status, headers: responseHeaders, json: otlpResponseJson(new Uint8Array(await res.arrayBuffer())) };
      }
      const text = await res.text();
      return { status: res.status, headers: responseHeaders, ...parseResponseBody(res.headers.get('content-type') ?? '', text) };
    },
  };
}
