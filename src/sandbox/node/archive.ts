import { crc32 } from 'node:zlib';

// Archives the sandbox's node serves behind signed URLs (worlds, backups, database backups): a
// real .tar.gz (`| tar tz` lists it) generated as it is sent, so a 200 MiB archive costs no
// memory, and of a size known before the first byte (Content-Length, the answer's `size`). The
// gzip member holds stored (uncompressed) deflate blocks, which makes the size a sum; an optional
// filler entry of pseudo-random bytes makes an archive as large as a test or a measurement needs.

export interface ArchiveEntry {
  /** Path inside the archive, without a leading slash. */
  name: string;
  data: Buffer;
}

export interface ArchiveSpec {
  /** Suggested file name (Content-Disposition). */
  filename: string;
  entries: ArchiveEntry[];
  /** Bytes of the filler entry (`filler.bin`); 0 for none. */
  fillerBytes: number;
}

const BLOCK = 512;
const STORED_MAX = 65535;
const FILLER_CHUNK = 64 * 1024;

/** One chunk of bytes that do not compress, repeated for the filler (xorshift, fixed seed). */
const FILLER = (() => {
  const b = Buffer.alloc(FILLER_CHUNK);
  let x = 0x9e3779b9;
  for (let i = 0; i < b.length; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b.writeUInt32LE(x >>> 0, i);
  }
  return b;
})();

const padded = (n: number) => Math.ceil(n / BLOCK) * BLOCK;

function entriesOf(spec: ArchiveSpec): Array<{ name: string; size: number }> {
  const list = spec.entries.map((e) => ({ name: e.name, size: e.data.length }));
  if (spec.fillerBytes > 0) list.push({ name: 'filler.bin', size: spec.fillerBytes });
  return list;
}

function tarSize(spec: ArchiveSpec): number {
  return entriesOf(spec).reduce((n, e) => n + BLOCK + padded(e.size), 0) + 2 * BLOCK;
}

/** Bytes on the wire: gzip header (10), stored blocks (5 bytes each), the tar, trailer (8). */
export function archiveSize(spec: ArchiveSpec): number {
  const raw = tarSize(spec);
  return 10 + 5 * Math.max(1, Math.ceil(raw / STORED_MAX)) + raw + 8;
}

/** A ustar header; names over 100 bytes are split into prefix and name at a slash. */
function tarHeader(name: string, size: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  let prefix = '';
  let rest = name;
  if (Buffer.byteLength(rest) > 100) {
    const cut = name.lastIndexOf('/', 155);
    prefix = cut > 0 ? name.slice(0, cut) : '';
    rest = cut > 0 ? name.slice(cut + 1) : name.slice(-100);
  }
  const put = (text: string, offset: number, length: number) => h.write(text, offset, length, 'utf8');
  const octal = (n: number, length: number) => `${n.toString(8).padStart(length - 1, '0')}\0`;
  put(rest, 0, 100);
  put(octal(0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(Math.floor(Date.UTC(2026, 0, 1) / 1000), 12), 136, 12);
  put('        ', 148, 8);
  put('0', 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  put('gsh', 265, 32);
  put('gsh', 297, 32);
  put(prefix, 345, 155);
  let sum = 0;
  for (const byte of h) sum += byte;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return h;
}

/** The tar stream's pieces in order, none larger than 64 KiB. */
function* tarPieces(spec: ArchiveSpec): Generator<Buffer> {
  for (const e of spec.entries) {
    yield tarHeader(e.name, e.data.length);
    for (let i = 0; i < e.data.length; i += FILLER_CHUNK) yield e.data.subarray(i, i + FILLER_CHUNK);
    const pad = padded(e.data.length) - e.data.length;
    if (pad) yield Buffer.alloc(pad);
  }
  if (spec.fillerBytes > 0) {
    yield tarHeader('filler.bin', spec.fillerBytes);
    for (let left = spec.fillerBytes; left > 0; left -= FILLER_CHUNK) yield FILLER.subarray(0, Math.min(FILLER_CHUNK, left));
    const pad = padded(spec.fillerBytes) - spec.fillerBytes;
    if (pad) yield Buffer.alloc(pad);
  }
  yield Buffer.alloc(2 * BLOCK);
}

function storedBlock(data: Buffer, final: boolean): Buffer {
  const head = Buffer.alloc(5);
  head[0] = final ? 1 : 0;
  head.writeUInt16LE(data.length, 1);
  head.writeUInt16LE(~data.length & 0xffff, 3);
  return Buffer.concat([head, data]);
}

/**
 * The archive's bytes, in pieces of at most 64 KiB. A full block is sent only once more data
 * follows, so the last block carries the final bit and the count is ceil(size / 65535).
 */
export function* archiveChunks(spec: ArchiveSpec): Generator<Buffer> {
  yield Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
  let crc = 0;
  let total = 0;
  let pending = Buffer.alloc(0);
  for (const piece of tarPieces(spec)) {
    crc = crc32(piece, crc);
    total += piece.length;
    let rest = piece;
    while (rest.length) {
      if (pending.length === STORED_MAX) {
        yield storedBlock(pending, false);
        pending = Buffer.alloc(0);
      }
      const take = Math.min(STORED_MAX - pending.length, rest.length);
      pending = pending.length ? Buffer.concat([pending, rest.subarray(0, take)]) : Buffer.from(rest.subarray(0, take));
      rest = rest.subarray(take);
    }
  }
  yield storedBlock(pending, true);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(total % 2 ** 32, 4);
  yield trailer;
}
