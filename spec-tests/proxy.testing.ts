/**
 * Test support: a "second implementation" made from a real tq server behind a proxy that
 * changes one behaviour. The proxy forwards every request and rewrites the lines of a JSON
 * Lines answer; `intercept` may answer a request itself (a control plane of the proxy's own).
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxyOptions {
  /** The new lines of a JSONL answer to `path` (its non-empty lines, without their newlines). */
  rewrite(lines: string[], path: string): string[];
  /** Answers the request itself and returns true, or returns false to forward it. */
  intercept?(req: IncomingMessage, res: ServerResponse): boolean;
}

/** A proxy in front of `target` (not yet listening). */
export function rewritingProxy(target: URL, { rewrite, intercept }: ProxyOptions): Server {
  return createServer((req, res) => {
    if (intercept?.(req, res)) return;
    const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('end', () => {
        let body = Buffer.concat(chunks);
        if ((up.headers['content-type'] ?? '').startsWith('application/jsonl')) {
          const lines = body.toString('utf8').split('\n').filter((l) => l !== '');
          body = Buffer.from(rewrite(lines, req.url ?? '').map((l) => l + '\n').join(''), 'utf8');
        }
        const headers = { ...up.headers, 'content-length': String(body.length) };
        delete headers['transfer-encoding'];
        res.writeHead(up.statusCode ?? 502, headers);
        res.end(body);
      });
    });
    req.pipe(upstream);
  });
}

/** Listens on a free loopback port; returns the proxy's base URL. */
export async function listenProxy(proxy: Server): Promise<string> {
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

/** The rewrite that reverses a JSONL answer's lines (wrong wherever an answer has two or more). */
export const reversed = (lines: string[]): string[] => [...lines].reverse();
