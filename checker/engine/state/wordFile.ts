/**
 * An append-only array of 32-bit words kept on disk but for its last block: an owner's records of how
 * each state was reached (20 bytes a state), which the search writes once and reads only to rebuild a
 * counterexample or save a checkpoint. So an owner's memory is its fingerprint set and its levels, as
 * TLC keeps its trace file on disk beside its fingerprint set in memory.
 *
 * The file is removed from its directory as soon as it is opened: nothing is left behind by a process
 * killed mid-search, and its space goes back to the disk when `close` (or the process's end) closes it.
 */
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Words kept in memory before they are written out together (64 KB). */
export const BLOCK_WORDS = 1 << 14;

export class WordFile {
  private readonly fd: number;
  /** The words not yet written: those from `written` on. */
  private readonly tail = new Uint32Array(BLOCK_WORDS);
  private written = 0;
  length = 0;
  private closed = false;

  /** A file in `directory` (the system's temporary directory by default: TMPDIR). */
  constructor(private readonly directory: string = tmpdir()) {
    const path = join(directory, `kmc-records-${process.pid}-${randomBytes(6).toString('hex')}`);
    try {
      this.fd = openSync(path, 'wx+', 0o600);
      unlinkSync(path);
    } catch (e) {
      throw new Error(`cannot keep a search's records in ${directory}: ${(e as Error).message} (set TMPDIR to a directory this process can write)`);
    }
  }

  /** Memory it takes (the file's bytes are on disk). */
  get bytes(): number {
    return this.tail.byteLength;
  }

  push(x: number): void {
    const at = this.length - this.written;
    this.tail[at] = x;
    this.length++;
    if (at + 1 === BLOCK_WORDS) this.flush();
  }

  /** Words [start, start + count), in a new array. */
  read(start: number, count: number): Uint32Array {
    if (start < 0 || start + count > this.length) throw new RangeError(`words ${start}..${start + count} of ${this.length}`);
    const out = new Uint32Array(count);
    const fromDisk = Math.max(0, Math.min(this.written, start + count) - start);
    if (fromDisk > 0) {
      const bytes = new Uint8Array(out.buffer, 0, 4 * fromDisk);
      let done = 0;
      while (done < bytes.length) {
        const n = readSync(this.fd, bytes, done, bytes.length - done, 4 * start + done);
        if (n === 0) throw new Error(`the records file in ${this.directory} ended at byte ${4 * start + done}: it was changed under the search`);
        done += n;
      }
    }
    if (fromDisk < count) out.set(this.tail.subarray(start + fromDisk - this.written, start + count - this.written), fromDisk);
    return out;
  }

  get(i: number): number {
    return i >= this.written && i < this.length ? this.tail[i - this.written]! : this.read(i, 1)[0]!;
  }

  /** Gives the file's space back; the words cannot be read after. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  private flush(): void {
    const bytes = new Uint8Array(this.tail.buffer);
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done, 4 * this.written + done);
    } catch (e) {
      throw new Error(`cannot write a search's records in ${this.directory}: ${(e as Error).message}`);
    }
    this.written += BLOCK_WORDS;
  }
}
