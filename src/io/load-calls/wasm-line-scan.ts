/**
 * The WebAssembly calls-line scanner (wasm/line-scan.ts, compiled to line-scan.wasm beside
 * this module) behind the CallLinePrescan interface: a block of lines is copied into the
 * module's memory once, each line is scanned there, and its results are read back through
 * typed-array views into the prescan's slot, exactly as CallLineScan.scan leaves them (the
 * JavaScript scanner stays the reference; wasm-line-scan.test.ts holds the two to identical
 * results over the corpus, the fixtures and random lines). Everything after the scan (UTF-8
 * check, datetimes, refs) is CallLinePrescan's own code.
 *
 * The block scan of a parallel calls load (block-scan.ts) uses it when the runtime has
 * WebAssembly SIMD (Node 20+ does); TQ_LINE_SCANNER=js keeps the JavaScript scanner (to
 * compare the two).
 */
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { CALL_LINE_FIELDS, ERROR, FIELD, FIELD_COUNT, latin1, REF_PREFIXES, STATUS_COUNTS } from '../../load/calls/line-scan.ts';
import { CallLinePrescan } from '../../load/calls/scanned-call.ts';

/** Where the input starts in the module's memory, and the readable bytes it needs past its end (see wasm/line-scan.ts). */
const INPUT = 65536;
const SLACK = 16;
const PAGE = 65536;
// Result places (wasm/line-scan.ts's memory map).
const R_KINDS = 0, R_STARTS = 32, R_ENDS = 128, R_FLAGS = 224, R_ERROR_FROM = 228, R_ERROR_TO = 232;
const R_REF_COUNT = 236, R_REF_UNSURE = 238, R_REF_FROM = 240, R_REF_TO = 248;
const SLOT_INPUTS = 6136, WORD_LEN = 6144, WORD_AT = 6208, WORDS = 6400, WORDS_END = 7168;

/** The little of the WebAssembly API used here (the compiler's ES lib has no declarations for it). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { exports: unknown };
}
type WasmModule = object;
const WebAssembly = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface ScannerExports {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  init(): void;
  scan(start: number, end: number): number;
}

let compiled: WasmModule | null | undefined;

/** The compiled module, or null when this runtime cannot run it (no WebAssembly SIMD). */
function scannerModule(): WasmModule | null {
  if (compiled === undefined) {
    const bytes = readFileSync(new URL('./line-scan.wasm', import.meta.url));
    if (!WebAssembly.validate(bytes)) return (compiled = null);
    // Compiled at once by the optimizing compiler (a few tens of ms), not first by the baseline
    // one: V8 tiers a module up on background threads, which on a busy machine left the scan
    // running baseline code for whole loads (1.6-1.9x slower, measured). The flags hold for
    // this compilation only.
    setFlagsFromString('--no-liftoff');
    setFlagsFromString('--no-wasm-lazy-compilation');
    try {
      compiled = new WebAssembly.Module(bytes);
    } finally {
      setFlagsFromString('--liftoff');
      setFlagsFromString('--wasm-lazy-compilation');
    }
  }
  return compiled;
}

/** Whether block scans use the WebAssembly scanner here. */
export function wasmLineScanAvailable(): boolean {
  return process.env.TQ_LINE_SCANNER !== 'js' && scannerModule() !== null;
}

/** A CallLinePrescan whose JSON scan runs in WebAssembly over the block given to setBlock. */
export class WasmCallLinePrescan extends CallLinePrescan {
  private readonly scanner: ScannerExports;
  private block: Uint8Array | null = null;
  /** Whether the whole block is valid UTF-8: then so is each of its lines (split at a newline, an ASCII byte). */
  private blockIsUtf8 = false;
  private memoryBytes!: Uint8Array;
  private resultKinds!: Uint8Array;
  private resultStarts!: Int32Array;
  private resultEnds!: Int32Array;
  private resultWords!: Int32Array;

  constructor(capacity: number) {
    super(capacity);
    const module = scannerModule();
    if (module === null) throw new Error('this runtime cannot run the WebAssembly line scanner (no SIMD)');
    this.scanner = new WebAssembly.Instance(module, {}).exports as unknown as ScannerExports;
    this.views();
    this.scanner.init();
    this.writeWords();
  }

  /** The typed-array views of the module's memory (again after it grows). */
  private views(): void {
    const buffer = this.scanner.memory.buffer;
    this.memoryBytes = new Uint8Array(buffer);
    this.resultKinds = new Uint8Array(buffer, R_KINDS, FIELD_COUNT);
    this.resultStarts = new Int32Array(buffer, R_STARTS, FIELD_COUNT);
    this.resultEnds = new Int32Array(buffer, R_ENDS, FIELD_COUNT);
    this.resultWords = new Int32Array(buffer, 0, R_REF_TO / 4 + 2);
  }

  /** The words the scanner compares keys and strings against, from line-scan.ts (one source). */
  private writeWords(): void {
    const m = this.memoryBytes;
    const words = [...CALL_LINE_FIELDS.map((f) => Uint8Array.from(f, (c) => c.charCodeAt(0))), ...REF_PREFIXES, STATUS_COUNTS, ERROR];
    let at = WORDS;
    words.forEach((w, k) => {
      m[WORD_LEN + k] = w.length;
      m[WORD_AT + 2 * k] = at & 0xff;
      m[WORD_AT + 2 * k + 1] = at >> 8;
      m.set(w, at);
      at += w.length;
    });
    if (at > WORDS_END) throw new Error('the line scanner words overflow their place');
    m[SLOT_INPUTS] = FIELD.inputs;
    m[SLOT_INPUTS + 1] = FIELD.output;
    m[SLOT_INPUTS + 2] = FIELD.summary;
  }

  /** Copies `block[0, length)` into the module: the lines scan() is given next are in it. */
  setBlock(block: Uint8Array, length: number): void {
    const memory = this.scanner.memory;
    const need = INPUT + length + SLACK;
    if (memory.buffer.byteLength < need) {
      memory.grow(Math.ceil((need - memory.buffer.byteLength) / PAGE));
      this.views();
    }
    this.memoryBytes.set(new Uint8Array(block.buffer, block.byteOffset, length), INPUT);
    this.memoryBytes.fill(0, INPUT + length, need);
    this.block = block;
    this.blockIsUtf8 = isUtf8(new Uint8Array(block.buffer, block.byteOffset, length));
  }

  /** One check of the whole block instead of one per line; a block that fails it is checked line by line. */
  protected override isUtf8(buf: Uint8Array, start: number, end: number): boolean {
    return (buf === this.block && this.blockIsUtf8) || super.isUtf8(buf, start, end);
  }

  /** CallLineScan.scan, in WebAssembly for a line of the block set last (any other buffer: the JavaScript scan). */
  override scan(buf: Uint8Array, start: number, end: number, slot = 0): boolean {
    if (buf !== this.block) return super.scan(buf, start, end, slot);
    const ok = this.scanner.scan(start, end) === 1;
    const base = slot * FIELD_COUNT;
    this.kinds.set(this.resultKinds, base);
    this.starts.set(this.resultStarts, base);
    this.ends.set(this.resultEnds, base);
    const m = this.memoryBytes, w = this.resultWords;
    this.flags[slot] = m[R_FLAGS];
    const errorFrom = w[R_ERROR_FROM / 4];
    this.errorCounts[slot] = errorFrom < 0 ? NaN : Number(latin1(buf, errorFrom, w[R_ERROR_TO / 4]));
    this.refCount[0] = m[R_REF_COUNT];
    this.refCount[1] = m[R_REF_COUNT + 1];
    this.refUnsure[0] = m[R_REF_UNSURE];
    this.refUnsure[1] = m[R_REF_UNSURE + 1];
    this.refFrom[0] = w[R_REF_FROM / 4];
    this.refFrom[1] = w[R_REF_FROM / 4 + 1];
    this.refTo[0] = w[R_REF_TO / 4];
    this.refTo[1] = w[R_REF_TO / 4 + 1];
    return ok;
  }
}
