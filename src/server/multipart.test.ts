import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MultipartError, multipartBoundary, parseHeaderParams, parseMultipart } from './multipart.ts';

const B = '----tqBoundary7MA4YWxk';
const enc = (s: string) => Buffer.from(s, 'latin1');
/** Every byte value, plus sequences that look like delimiters but are not. */
const BINARY = Buffer.concat([
  Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  enc(`\r\n--${B.slice(0, -1)}\r\n--\r\n\r\n`),
  Buffer.from([0xff, 0xfe, 0x00, 0x0d, 0x0a]),
]);

function body(...parts: Array<string | Buffer>): Buffer {
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? enc(p) : p)));
}

describe('multipart/form-data parsing', () => {
  it('reads the boundary from the content type (quoted or not, any case)', () => {
    assert.equal(multipartBoundary(`multipart/form-data; boundary=${B}`), B);
    assert.equal(multipartBoundary('Multipart/Form-Data; charset=utf-8; BOUNDARY="a b;c"'), 'a b;c');
    assert.equal(multipartBoundary('application/json'), undefined);
    assert.equal(multipartBoundary(undefined), undefined);
    assert.deepEqual(parseHeaderParams('form-data; name="a\\"b"; filename=x.bin').params, new Map([['name', 'a"b'], ['filename', 'x.bin']]));
  });

  it('splits fields and files; file bytes are kept exactly (binary-safe)', () => {
    const parsed = parseMultipart(
      body(
        `--${B}\r\n`,
        'Content-Disposition: form-data; name="project_id"\r\n\r\n',
        'acme/bot',
        `\r\n--${B}\r\n`,
        'Content-Disposition: form-data; name="file"; filename="blob"\r\nContent-Type: application/octet-stream\r\n\r\n',
        BINARY,
        `\r\n--${B}--\r\n`,
      ),
      B,
    );
    assert.deepEqual(parsed.fields, new Map([['project_id', 'acme/bot']]));
    assert.deepEqual([...parsed.files.keys()], ['file']);
    assert.ok(Buffer.from(parsed.files.get('file')!).equals(BINARY));
  });

  it('skips a preamble and an epilogue; keeps empty parts and UTF-8 fields', () => {
    const parsed = parseMultipart(
      body(
        'preamble text\r\n',
        `--${B}\r\ncontent-disposition: form-data; name="empty"\r\n\r\n`,
        `\r\n--${B}  \r\nContent-Disposition: form-data; name="text"\r\n\r\n`,
        Buffer.from('zoë ✓', 'utf8'),
        `\r\n--${B}\r\nContent-Disposition: form-data; name="f"; filename=""\r\n\r\n`,
        `\r\n--${B}--epilogue`,
      ),
      B,
    );
    assert.deepEqual(parsed.fields, new Map([['empty', ''], ['text', 'zoë ✓']]));
    assert.deepEqual(parsed.files, new Map([['f', new Uint8Array(0)]]));
  });

  it('a repeated name keeps the last part', () => {
    const parsed = parseMultipart(
      body(`--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\n2\r\n--${B}--`),
      B,
    );
    assert.deepEqual(parsed.fields, new Map([['a', '2']]));
  });

  it('rejects truncated or malformed bodies', () => {
    const cases: Array<[string, Buffer]> = [
      ['no boundary at all', body('hello')],
      ['no closing delimiter', body(`--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue`)],
      ['truncated after a delimiter', body(`--${B}`)],
      ['unterminated headers', body(`--${B}\r\nContent-Disposition: form-data; name="a"\r\n`)],
      ['no content-disposition', body(`--${B}\r\nContent-Type: text/plain\r\n\r\nx\r\n--${B}--`)],
      ['no name', body(`--${B}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${B}--`)],
      ['garbage after delimiter', body(`--${B}xx\r\n\r\nx\r\n--${B}--`)],
      ['header without colon', body(`--${B}\r\nnonsense\r\n\r\nx\r\n--${B}--`)],
    ];
    for (const [name, bytes] of cases) assert.throws(() => parseMultipart(bytes, B), MultipartError, name);
    assert.throws(() => parseMultipart(body(''), ''), MultipartError);
    assert.throws(() => parseMultipart(body(''), 'x'.repeat(71)), MultipartError);
  });
});

describe('issue 22 §3: header parameters are parsed in linear time', () => {
  it('a long quoted filename, many escapes and many bare `;` parse in time linear in their length', () => {
    const kinds: Array<[string, (n: number) => string, (n: number) => string]> = [
      ['quoted filename', (n) => `form-data; name="file"; filename="${'a'.repeat(n * 30)}"`, (n) => 'a'.repeat(n * 30)],
      ['escapes', (n) => `form-data; name="file"; filename="${'\\"'.repeat(n)}"`, (n) => '"'.repeat(n)],
      ['bare ;', (n) => `form-data; name="file"${'; '.repeat(n)}; filename="x"`, () => 'x'],
    ];
    for (const [kind, header, filename] of kinds) {
      const time = (n: number) => {
        const text = header(n);
        const t0 = performance.now();
        const { params } = parseHeaderParams(text);
        const ms = performance.now() - t0;
        assert.equal(params.get('filename'), filename(n), kind);
        assert.equal(params.get('name'), 'file', kind);
        return ms;
      };
      const small = time(50_000);
      const large = time(400_000);
      // 8 times the input: linear is about 8 times the time, quadratic 64 (the bare `;` were).
      assert.ok(large < 20 * small + 1000, `${kind}: ${small.toFixed(0)} ms for 50,000, ${large.toFixed(0)} ms for 400,000`);
    }
    assert.deepEqual([...parseHeaderParams('form-data; a="x\\\\y\\"z"; b=1').params], [['a', 'x\\y"z'], ['b', '1']]);
  });
});
