import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { nanosToMicros, opNameOf, RejectedSpan, shortenName, spanToCall } from './convert.ts';
import { OtlpFormatError, type AnyValue, type KeyValue, type Span } from './model.ts';

const str = (v: string): AnyValue => ({ t: 'string', v });
const int = (v: number): AnyValue => ({ t: 'int', v: BigInt(v) });
const dbl = (v: number): AnyValue => ({ t: 'double', v });
const attrs = (o: Record<string, AnyValue>): KeyValue[] => Object.entries(o).map(([key, value]) => ({ key, value }));

function span(over: Partial<Span> = {}): Span {
  return {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    parentSpanId: null,
    traceState: '',
    flags: 0,
    name: 'op',
    kind: 1,
    startTimeUnixNano: 1714564800000000000n,
    endTimeUnixNano: 1714564801000000000n,
    attributes: [],
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    status: { code: 0, message: '' },
    ...over,
  };
}

const convert = (s: Span) => spanToCall(s, 'e/p', 'alice', 'spans[0]');

describe('span → call (semantics.md#otel-ids .. semantics.md#otel-wandb-keys)', () => {
  it('ids, times, user, and the summary stored with the call', () => {
    const c = convert(span({ parentSpanId: '00f067aa0ba902b7', status: { code: 2, message: 'boom' } }));
    assert.deepEqual(
      { id: c.start.id, trace: c.start.trace_id, parent: c.start.parent_id, user: c.start.user_id, started: c.start.started_at, ended: c.end.ended_at, exception: c.end.exception },
      { id: 'b7ad6b7169203331', trace: '0af7651916cd43dd8448eb211c80319c', parent: '00f067aa0ba902b7', user: 'alice', started: 1714564800000000, ended: 1714564801000000, exception: 'boom' },
    );
    assert.deepEqual(c.end.summary, {
      weave: { status: 'error', latency_ms: 1000, trace_name: 'op' },
      usage: { usage: { input_tokens: null, output_tokens: null, completion_tokens: null, prompt_tokens: null, total_tokens: null, requests: null } },
    });
  });

  it('an "output" attribute is the output itself, of any type', () => {
    assert.deepEqual(convert(span({ attributes: attrs({ output: str('[1, 2]') }) })).end.output, [1, 2]);
    assert.equal(convert(span({ attributes: attrs({ output: str('done') }) })).end.output, 'done');
  });

  it('the usage key falls back to model_parameters.model; usage counts as ints', () => {
    const c = convert(span({ attributes: attrs({ 'gen_ai.request.model': str('m-1'), 'gen_ai.usage.prompt_tokens': dbl(4.7), 'gen_ai.usage.completion_tokens': str('2') }) }));
    assert.deepEqual(c.end.summary.usage, { 'm-1': { input_tokens: null, output_tokens: null, completion_tokens: 2, prompt_tokens: 4, total_tokens: 6, requests: null } });
    assert.deepEqual(c.start.attributes, { model_parameters: { model: 'm-1' } });
  });

  it('the attribute tree dumped as attributes shows the list conversions the input lookup made', () => {
    // gen_ai.prompt is found as input, so its "0" children became a list in the shared tree; but
    // with inputs present the tree is not dumped: only a span with nothing recognised dumps it.
    const dumped = convert(span({ attributes: attrs({ 'x.0': str('a'), 'x.1': str('b'), 'y.z': int(1) }) }));
    assert.deepEqual(dumped.start.attributes, { x: { '0': 'a', '1': 'b' }, y: { z: 1 } });
    assert.deepEqual(dumped.start.inputs, {});
    assert.deepEqual(dumped.end.output, {});
  });

  it('a conflict in span, event or link attributes rejects the span with production\'s message', () => {
    const message = "Rejected span (name='op' trace_id='0af7651916cd43dd8448eb211c80319c' span_id='b7ad6b7169203331'): Invalid attribute structure: cannot set subkey 'b' under parent key 'a' because it is already a str. Attributes must form a valid tree structure.";
    assert.throws(() => convert(span({ attributes: attrs({ a: str('x'), 'a.b': str('y') }) })), (e: unknown) => e instanceof RejectedSpan && e.message === message);
    const event = { timeUnixNano: 0n, name: 'exception', attributes: attrs({ a: str('x'), 'a.b': str('y') }), droppedAttributesCount: 0 };
    assert.throws(() => convert(span({ events: [event] })), RejectedSpan);
  });

  it('times outside Python\'s datetime range fail the export', () => {
    // Nanoseconds (u64) end in 2554; only Langfuse's float-seconds override reaches further.
    assert.equal(convert(span({ endTimeUnixNano: 2n ** 64n - 1n })).end.ended_at, 18446744073709552);
    const far = span({ attributes: attrs({ 'input.value': str('x'), 'langfuse.endTime': dbl(1e13) }) });
    assert.throws(() => convert(far), (e: unknown) => e instanceof OtlpFormatError && e.message === 'spans[0]: span end time is outside 1970-01-01..9999-12-31');
    const before = span({ attributes: attrs({ 'input.value': str('x'), 'langfuse.startTime': str('1969-12-31T23:59:59Z') }) });
    assert.throws(() => convert(before), OtlpFormatError);
  });

  it('call fields of the wrong type fail the export, naming the span and the attribute', () => {
    const failure = (a: Record<string, AnyValue>) => {
      try {
        convert(span({ attributes: attrs({ 'input.value': str('x'), ...a }) }));
      } catch (e) {
        assert.ok(e instanceof OtlpFormatError);
        return e.message;
      }
      return 'converted';
    };
    assert.equal(failure({ 'wandb.display_name': int(5) }), 'spans[0]: wandb.display_name must be a string (got 5)');
    assert.equal(failure({ 'wandb.thread_id': int(1) }), 'spans[0]: wandb.thread_id must be a string (got 1)');
    assert.equal(failure({ 'wandb.wb_run_step': str('x') }), 'spans[0]: wandb.wb_run_step must be an integer (got "x")');
    assert.equal(failure({ 'gen_ai.usage.prompt_tokens': str('many') }), 'spans[0]: usage prompt_tokens must be an integer (got "many")');
    assert.equal(failure({ 'wandb.wb_run_step': str('7'), 'wandb.wb_run_step_end': dbl(8.0) }), 'converted');
  });

  it('nanoseconds become microseconds as datetime.fromtimestamp(ns / 1e9) does', () => {
    assert.equal(nanosToMicros(1714564800123456789n), 1714564800123457);
    assert.equal(nanosToMicros(1714564800123456000n), 1714564800123456);
    assert.equal(nanosToMicros(0n), 0);
  });
});

describe('names (semantics.md#otel-op-name)', () => {
  it('shorten_name as production documents it', () => {
    assert.equal(shortenName('hello/world.txt', 10), 'hello/...');
    assert.equal(shortenName('hello/world.txt', 10, '...', false), 'hello...');
    assert.equal(shortenName('hello/world.txt', 20), 'hello/world.txt');
    assert.equal(shortenName('verylongword', 8), 'veryl...');
    assert.equal(shortenName('hello/world.txt', 10, ':1234', false), 'hello:1234');
  });

  it('op names longer than 128 code points get a hash tag', () => {
    const long = 'a'.repeat(129);
    // 128 reaches shorten_name, which keeps a name that already fits.
    assert.equal(opNameOf('a'.repeat(128)), 'a'.repeat(128));
    assert.equal(opNameOf(long), 'a'.repeat(123) + ':' + createHash('sha256').update(long).digest('hex').slice(0, 4));
    const words = 'step '.repeat(40).trim();
    const short = opNameOf(words);
    assert.ok(Array.from(short).length <= 128 && short.startsWith('step step') && /:[0-9a-f]{4}$/.test(short), short);
  });
});
