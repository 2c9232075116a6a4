/**
 * A deterministic, seeded generator of Weave-shaped fixture data at any size: calls averaging
 * about 1.1 KB per JSONL line (nested inputs, outputs, attributes, summary.usage), traces of
 * 1–30 calls, ~10% of traces as thread turns with nested non-turn calls, ~3% errors, some
 * running calls, op refs, and optionally a large table.
 *
 * Pure: it yields lines; `tq gen` and the benchmarks write them where they want.
 */

/** mulberry32: tiny, fast, good enough for test data, and the same on every machine. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the a refund order shipping account password reset invoice charge card plan upgrade cancel ' +
  'delivery late missing damaged item return label support agent customer answer question ' +
  'please thanks help need status update email phone address billing subscription trial'
).split(' ');

const OPS = [
  'chat_turn', 'retrieve', 'rerank', 'embed', 'llm_call', 'tool_call', 'format_answer', 'classify_intent',
  'guardrail', 'summarize', 'parse_json', 'score', 'evaluate', 'predict', 'search_kb', 'plan',
];
const MODELS = ['gpt-4o-mini', 'gpt-4o', 'claude-3-5-sonnet', 'llama-3-70b'];
const USERS = ['user-alice', 'user-bob', 'user-carol', 'user-dan', 'user-erin'];

export interface GenerateOptions {
  calls: number;
  seed?: number;
  projectId?: string;
  /** Field prefix for user/run fields. */
  prefix?: string;
  /** Start of the generated time range, µs since epoch. */
  startUs?: number;
}

function digest43(r: () => number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < 43; i++) s += alphabet[Math.floor(r() * alphabet.length)];
  return s;
}

function uuidLike(r: () => number, ms: number): string {
  const hex = (n: number) => Math.floor(r() * 16 ** n).toString(16).padStart(n, '0');
  const t = ms.toString(16).padStart(12, '0');
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${hex(3)}-${(8 + Math.floor(r() * 4)).toString(16)}${hex(3)}-${hex(12)}`;
}

function sentence(r: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(r() * WORDS.length)]);
  return out.join(' ');
}

function iso(us: number): string {
  const ms = Math.floor(us / 1000);
  const micros = us % 1_000_000;
  return new Date(ms).toISOString().slice(0, 19) + '.' + String(micros).padStart(6, '0') + 'Z';
}

/** Yields calls.jsonl lines. Calls come in trace order, children after their parents. */
export function* generateCalls(o: GenerateOptions): Generator<string> {
  const r = rng(o.seed ?? 1);
  const project = o.projectId ?? 'bench/gen';
  const prefix = o.prefix ?? 'svc_';
  const opRefs = OPS.map((name) => `weave:///${project}/op/${name}:${digest43(r)}`);
  let clock = o.startUs ?? Date.UTC(2025, 0, 1) * 1000;
  let produced = 0;
  let threadSeq = 0;
  while (produced < o.calls) {
    const size = Math.min(o.calls - produced, 1 + Math.floor(r() * r() * 30));
    clock += Math.floor(r() * 5_000_000);
    const traceStart = clock;
    const traceId = uuidLike(r, Math.floor(traceStart / 1000));
    const inThread = r() < 0.1;
    const threadId = inThread ? `thread-${(threadSeq = (threadSeq + (r() < 0.7 ? 1 : 0)) % 1_000_000)}` : null;
    const ids: string[] = [];
    const ends: number[] = [];
    for (let i = 0; i < size; i++) {
      const parentIndex = i === 0 ? -1 : Math.floor(r() * i);
      const started = i === 0 ? traceStart : traceStart + (i * 1000) + Math.floor(r() * 50_000);
      const id = uuidLike(r, Math.floor(started / 1000));
      ids.push(id);
      const running = r() < 0.01;
      const failed = !running && r() < 0.03;
      const duration = Math.floor(r() * r() * 8_000_000) + 1000;
      const ended = running ? null : started + duration;
      ends.push(ended ?? 0);
      const model = MODELS[Math.floor(r() * MODELS.length)];
      const prompt = 50 + Math.floor(r() * 2000);
      const completion = 10 + Math.floor(r() * 600);
      const op = opRefs[Math.floor(r() * (i === 0 ? 4 : opRefs.length))];
      const call = {
        id,
        project_id: project,
        op_name: op,
        display_name: r() < 0.05 ? `run ${sentence(r, 2)}` : null,
        trace_id: traceId,
        parent_id: parentIndex < 0 ? null : ids[parentIndex],
        thread_id: threadId,
        turn_id: threadId === null ? null : ids[0],
        started_at: iso(started),
        ended_at: ended === null ? null : iso(ended),
        attributes: { weave: { client_version: '0.51.0', source: 'python-sdk', os_name: 'Linux' }, env: r() < 0.8 ? 'prod' : 'staging' },
        inputs: {
          messages: [
            { role: 'system', content: sentence(r, 2) },
            { role: 'user', content: sentence(r, 3 + Math.floor(r() * 10)) },
          ],
          model,
          temperature: Math.round(r() * 100) / 100,
          max_tokens: 64 * (1 + Math.floor(r() * 16)),
          config: { retries: Math.floor(r() * 4), stream: r() < 0.5, tags: [sentence(r, 1)] },
          n: Math.floor(r() * 1000),
        },
        output: ended === null ? null : failed ? null : { answer: sentence(r, 4 + Math.floor(r() * 8)), score: Math.round(r() * 1000) / 1000, tokens: completion },
        exception: failed ? `RateLimitError: ${sentence(r, 5)}` : null,
        summary: ended === null ? null : {
          usage: { [model]: { prompt_tokens: prompt, completion_tokens: completion, requests: 1, total_tokens: prompt + completion } },
          status_counts: { success: failed ? 0 : 1, error: failed ? 1 : 0 },
        },
        [`${prefix}user_id`]: USERS[Math.floor(r() * USERS.length)],
        [`${prefix}run_id`]: r() < 0.2 ? `${project}/run-${Math.floor(r() * 100)}` : null,
        [`${prefix}run_step`]: null,
        [`${prefix}run_step_end`]: null,
        deleted_at: null,
      };
      yield JSON.stringify(call);
      produced++;
    }
  }
}

/** Yields one tables.jsonl line holding a table of `rows` rows (without a digest field). */
export function* generateTable(rows: number, seed = 2, projectId = 'bench/gen'): Generator<string> {
  const r = rng(seed);
  const parts: string[] = [];
  for (let i = 0; i < rows; i++) {
    parts.push(JSON.stringify({ id: i, question: sentence(r, 6), meta: { difficulty: Math.floor(r() * 1000) / 10, tags: [sentence(r, 1)] }, expected: r() < 0.1 ? null : sentence(r, 3) }));
  }
  yield `{"project_id":${JSON.stringify(projectId)},"rows":[${parts.join(',')}]}`;
}
