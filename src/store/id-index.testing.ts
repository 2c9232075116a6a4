/** Test helpers for the id index (id-index.ts). */
import { IdHash } from './id-index.ts';

/** Hashes that collide on purpose: every id into one of `buckets` (a, b) pairs, by its length and first code unit. */
export class CollidingIdHash extends IdHash {
  constructor(private readonly buckets: number) {
    super();
  }
  override bytes(bytes: Uint8Array, from: number, to: number): void {
    this.set(to - from + (to > from ? bytes[from] : 0));
  }
  override string(id: string): void {
    const bytes = Buffer.from(id, 'utf8');
    this.bytes(bytes, 0, bytes.length);
  }
  private set(n: number): void {
    this.a = 1 + (n % this.buckets);
    this.b = 7;
  }
}
