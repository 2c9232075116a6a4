/**
 * Latency and error injection for testing clients' retry paths, as Prism does:
 *   - `--delay MS` or `--delay MIN-MAX` delays every response (uniformly random in the range);
 *   - a request header `Prefer: delay=200` delays that response instead (ms), and
 *     `Prefer: code=503` answers it with that error status and `{"reason": ...}`.
 * Both may be combined (`Prefer: code=503, delay=200`). Other preferences are ignored, as
 * RFC 7240 asks. Injection applies after authentication, so only a user can slow tq down.
 */
import { invalidRequest, ServerError } from '../core/errors.ts';

/** The longest delay a request may ask for. */
const MAX_DELAY_MS = 60_000;

export interface DelayRange {
  min: number;
  max: number;
}

/** An error answered on request; its status is the one the client named. */
export class InjectedError extends ServerError {
  constructor(status: number) {
    super('TQ_INJECTED', { status });
    (this as { status: number }).status = status;
  }
}

const DELAY_TEXT = /^(\d+)(?:-(\d+))?$/;

/** Parses `MS` or `MIN-MAX`; returns an error message instead when the text is wrong. */
export function parseDelayRange(text: string): DelayRange | string {
  const m = DELAY_TEXT.exec(text.trim());
  if (!m) return `must be MS or MIN-MAX in milliseconds, got '${text}'`;
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : Number(m[2]);
  if (max < min) return `the range must not decrease, got '${text}'`;
  if (max > MAX_DELAY_MS) return `must be at most ${MAX_DELAY_MS} ms, got '${text}'`;
  return { min, max };
}

export interface Preferences {
  code?: number;
  delay?: number;
}

const bad = (reason: string) => invalidRequest('TQ_INVALID_REQUEST', { reason: `Invalid Prefer header: ${reason}` });

/** The `code` and `delay` preferences of a Prefer header (RFC 7240 syntax; names case-insensitive). */
export function parsePrefer(header: string | string[] | undefined): Preferences {
  const prefs: Preferences = {};
  if (header === undefined) return prefs;
  const text = Array.isArray(header) ? header.join(',') : header;
  for (const item of text.split(',')) {
    const [token] = item.split(';');
    const eq = token.indexOf('=');
    if (eq < 0) continue;
    const name = token.slice(0, eq).trim().toLowerCase();
    const value = token.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (name === 'code') {
      if (!/^\d{3}$/.test(value) || Number(value) < 400 || Number(value) > 599) throw bad(`code must be an error status from 400 to 599, got '${value}'`);
      prefs.code = Number(value);
    } else if (name === 'delay') {
      if (!/^\d{1,6}$/.test(value) || Number(value) > MAX_DELAY_MS) throw bad(`delay must be a whole number of milliseconds from 0 to ${MAX_DELAY_MS}, got '${value}'`);
      prefs.delay = Number(value);
    }
  }
  return prefs;
}

export interface Injector {
  /** Waits the delay due for this request, then returns the error to answer with, if any. */
  apply(preferHeader: string | string[] | undefined): Promise<InjectedError | undefined>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createInjector(delay: DelayRange | undefined, random: () => number = Math.random, wait: (ms: number) => Promise<void> = sleep): Injector {
  return {
    async apply(preferHeader) {
      const prefs = parsePrefer(preferHeader);
      const ms = prefs.delay ?? (delay ? delay.min + Math.floor(random() * (delay.max - delay.min + 1)) : 0);
      if (ms > 0) await wait(ms);
      return prefs.code === undefined ? undefined : new InjectedError(prefs.code);
    },
  };
}
