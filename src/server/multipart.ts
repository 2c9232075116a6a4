/**
 * A small multipart/form-data parser (RFC 7578 over RFC 2046 §5.1.1), enough for
 * `/file/create`: the Weave SDK sends a `project_id` field and a `file` part with
 * `filename="blob"` and `application/octet-stream` bytes.
 *
 * The whole body is already in memory (it is bounded by the server's body limit), so parsing
 * is a scan with Buffer.indexOf. A part whose Content-Disposition has a `filename` parameter
 * is a file (its bytes are kept exactly, binary-safe); any other part is a text field, decoded
 * as UTF-8. A repeated name keeps the last part, as Starlette's form lookup does.
 */

export interface MultipartBody {
  fields: Map<string, string>;
  files: Map<string, Uint8Array>;
}

/** A body that does not parse as multipart/form-data (400, as Starlette reports it). */
export class MultipartError extends Error {}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * Splits `type/subtype; a=b; c="d"` into the lower-cased media type and its parameters
 * (names lower-cased; quoted values unescaped).
 */
export function parseHeaderParams(value: string): { type: string; params: Map<string, string> } {
  const params = new Map<string, string>();
  let i = value.indexOf(';');
  const type = (i < 0 ? value : value.slice(0, i)).trim().toLowerCase();
  if (i < 0) return { type, params };
  // Linear in the header's length whatever it holds (a 30 MB quoted filename, a million `;`):
  // each search starts where the last one ended, and values are sliced, not built a character
  // at a time.
  while (i < value.length) {
    i++; // past ';'
    while (i < value.length && /\s/.test(value[i])) i++;
    const semi = value.indexOf(';', i);
    const end = semi < 0 ? value.length : semi;
    const eq = value.slice(i, end).indexOf('=');
    if (eq < 0) {
      // A parameter without a value: skip it.
      i = end;
      continue;
    }
    const name = value.slice(i, i + eq).trim().toLowerCase();
    i += eq + 1;
    let v = '';
    if (value[i] === '"') {
      const pieces: string[] = [];
      let from = i + 1;
      // Each search resumes past the last hit (-2: not searched yet), so the scan stays linear.
      let quote = -2;
      let escape = -2;
      for (;;) {
        if (quote !== -1 && quote < from) quote = value.indexOf('"', from);
        if (escape !== -1 && escape < from) escape = value.indexOf('\\', from);
        if (escape >= 0 && (quote < 0 || escape < quote) && escape + 1 < value.length) {
          pieces.push(value.slice(from, escape), value[escape + 1]);
          from = escape + 2;
          continue;
        }
        pieces.push(value.slice(from, quote < 0 ? value.length : quote));
        i = quote < 0 ? value.length : quote + 1; // past the closing quote
        break;
      }
      v = pieces.join('');
      const next = value.indexOf(';', i);
      i = next < 0 ? value.length : next;
    } else {
      v = value.slice(i, end).trim();
      i = end;
    }
    if (name !== '') params.set(name, v);
  }
  return { type, params };
}

/** The boundary of a `multipart/form-data` content type, or undefined for any other type. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  const { type, params } = parseHeaderParams(contentType);
  if (type !== 'multipart/form-data') return undefined;
  return params.get('boundary');
}

function parsePartHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  if (block === '') return headers;
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MultipartError(`malformed part header line '${line}'`);
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/**
 * Parses a multipart/form-data body.
 * @throws MultipartError when the boundary is unusable, a delimiter is missing, the closing
 *   delimiter never comes, or a part has no `Content-Disposition: form-data; name=...`.
 */
export function parseMultipart(body: Uint8Array, boundary: string): MultipartBody {
  // RFC 2046: 1 to 70 characters.
  if (boundary.length === 0 || boundary.length > 70) throw new MultipartError('invalid boundary');
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const dashBoundary = Buffer.from(`--${boundary}`, 'latin1');
  // Every delimiter after the first is preceded by CRLF, which belongs to the delimiter.
  const delimiter = Buffer.concat([CRLF, dashBoundary]);
  const result: MultipartBody = { fields: new Map(), files: new Map() };

  // The first delimiter may follow a preamble (which ends with CRLF) or open the body.
  let pos: number;
  if (buf.subarray(0, dashBoundary.length).equals(dashBoundary)) pos = dashBoundary.length;
  else {
    const at = buf.indexOf(delimiter);
    if (at < 0) throw new MultipartError('no multipart boundary found');
    pos = at + delimiter.length;
  }

  for (;;) {
    // After a delimiter: `--` closes the body; otherwise optional padding, then CRLF.
    if (buf[pos] === 0x2d && buf[pos + 1] === 0x2d) return result;
    while (buf[pos] === 0x20 || buf[pos] === 0x09) pos++;
    if (buf[pos] !== 0x0d || buf[pos + 1] !== 0x0a) throw new MultipartError('malformed multipart delimiter');
    pos += 2;

    let headerBlock: string;
    if (buf[pos] === 0x0d && buf[pos + 1] === 0x0a) {
      headerBlock = '';
      pos += 2;
    } else {
      const end = buf.indexOf(HEADER_END, pos);
      if (end < 0) throw new MultipartError('unterminated part headers');
      headerBlock = buf.toString('utf8', pos, end);
      pos = end + HEADER_END.length;
    }
    const next = buf.indexOf(delimiter, pos);
    if (next < 0) throw new MultipartError('missing closing multipart boundary');
    const content = buf.subarray(pos, next);
    pos = next + delimiter.length;

    const headers = parsePartHeaders(headerBlock);
    const disposition = headers.get('content-disposition');
    if (disposition === undefined) throw new MultipartError('part without Content-Disposition');
    const { type, params } = parseHeaderParams(disposition);
    const name = params.get('name');
    if (type !== 'form-data' || name === undefined) throw new MultipartError('part without a form-data name');
    if (params.has('filename') || params.has('filename*')) {
      // Copy: the caller may keep the bytes after the request buffer is gone.
      result.files.set(name, new Uint8Array(content));
      result.fields.delete(name);
    } else {
      result.fields.set(name, content.toString('utf8'));
      result.files.delete(name);
    }
  }
}
