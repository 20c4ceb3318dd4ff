/**
 * A tiny WebAssembly SIMD kernel for the vector scan: dot products of 1 or 4 query vectors
 * against every row of a Float32 matrix held in the module's own memory, with f32x4
 * multiply-adds (about 4× a scalar JS loop). The module is assembled here from its
 * opcodes (no build step, no dependency); store/vector-matrix.ts falls back to plain JS when
 * WebAssembly SIMD is unavailable. Pure compute: no I/O.
 *
 *   dot1(q, data, n, rowBytes, out)               out[r]       = q · row_r
 *   dot4(q0, q1, q2, q3, data, n, rowBytes, out)  out[4r + j]  = q_j · row_r
 *   dotI8(q, data, n, rowBytes, out)              out[r] (i32) = q · row_r, q Int16 and rows Int8
 *                                                 (rowBytes a positive multiple of 8): exact
 *                                                 integer sums, for store/vector-matrix.ts's
 *                                                 quantized first pass
 * Pointers are byte offsets into the exported memory; rowBytes is a positive multiple of 16.
 */

// --- encoding helpers ---
const I32 = 0x7f;
const V128 = 0x7b;
const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
};
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const str = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, 'utf8')];

// --- instructions ---
const get = (i: number) => [0x20, ...uleb(i)];
const set = (i: number) => [0x21, ...uleb(i)];
const tee = (i: number) => [0x22, ...uleb(i)];
const i32c = (v: number) => [0x41, ...sleb(v)];
const I32_ADD = [0x6a];
const I32_MUL = [0x6c];
const I32_LT_U = [0x49];
const I32_GE_U = [0x4f];
const F32_ADD = [0x92];
const i32Store = (offset: number) => [0x36, 2, ...uleb(offset)];
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const END = [0x0b];
const brIf = (d: number) => [0x0d, ...uleb(d)];
const f32Store = (offset: number) => [0x38, 2, ...uleb(offset)];
const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
const V128_LOAD = simd(0x00, 4, 0);
const V128_ZERO = simd(0x0c, ...new Array(16).fill(0));
const F32X4_ADD = simd(228);
const F32X4_MUL = simd(230);
const lane = (l: number) => simd(0x1f, l);
const V128_LOAD8X8_S = simd(0x01, 3, 0);
const I32X4_DOT_I16X8_S = simd(186);
const I32X4_ADD = simd(174);
const i32Lane = (l: number) => simd(0x1b, l);
/** Horizontal sum of the v128 in local `acc` onto the stack as one f32. */
const hsum = (acc: number) => [...get(acc), ...lane(0), ...get(acc), ...lane(1), ...F32_ADD, ...get(acc), ...lane(2), ...F32_ADD, ...get(acc), ...lane(3), ...F32_ADD];

function dot1Body(): number[] {
  // params: 0 q, 1 data, 2 n, 3 rowBytes, 4 out · locals: 5 end, 6 j (i32), 7 acc (v128)
  const code = [
    ...get(1), ...get(2), ...get(3), ...I32_MUL, ...I32_ADD, ...set(5),
    ...BLOCK,
    ...get(1), ...get(5), ...I32_GE_U, ...brIf(0),
    ...LOOP,
    ...V128_ZERO, ...set(7), ...i32c(0), ...set(6),
    ...LOOP,
    ...get(7), ...get(0), ...get(6), ...I32_ADD, ...V128_LOAD, ...get(1), ...get(6), ...I32_ADD, ...V128_LOAD, ...F32X4_MUL, ...F32X4_ADD, ...set(7),
    ...get(6), ...i32c(16), ...I32_ADD, ...tee(6), ...get(3), ...I32_LT_U, ...brIf(0),
    ...END,
    ...get(4), ...hsum(7), ...f32Store(0),
    ...get(4), ...i32c(4), ...I32_ADD, ...set(4),
    ...get(1), ...get(3), ...I32_ADD, ...tee(1), ...get(5), ...I32_LT_U, ...brIf(0),
    ...END,
    ...END,
    ...END,
  ];
  return [...vec([[...uleb(2), I32], [...uleb(1), V128]]), ...code];
}

function dot4Body(): number[] {
  // params: 0..3 q0..q3, 4 data, 5 n, 6 rowBytes, 7 out · locals: 8 end, 9 j (i32), 10 x, 11..14 acc0..3 (v128)
  const accumulate = (q: number, acc: number) => [
    ...get(acc), ...get(q), ...get(9), ...I32_ADD, ...V128_LOAD, ...get(10), ...F32X4_MUL, ...F32X4_ADD, ...set(acc),
  ];
  const code = [
    ...get(4), ...get(5), ...get(6), ...I32_MUL, ...I32_ADD, ...set(8),
    ...BLOCK,
    ...get(4), ...get(8), ...I32_GE_U, ...brIf(0),
    ...LOOP,
    ...V128_ZERO, ...set(11), ...V128_ZERO, ...set(12), ...V128_ZERO, ...set(13), ...V128_ZERO, ...set(14),
    ...i32c(0), ...set(9),
    ...LOOP,
    ...get(4), ...get(9), ...I32_ADD, ...V128_LOAD, ...set(10),
    ...accumulate(0, 11), ...accumulate(1, 12), ...accumulate(2, 13), ...accumulate(3, 14),
    ...get(9), ...i32c(16), ...I32_ADD, ...tee(9), ...get(6), ...I32_LT_U, ...brIf(0),
    ...END,
    ...get(7), ...hsum(11), ...f32Store(0),
    ...get(7), ...hsum(12), ...f32Store(4),
    ...get(7), ...hsum(13), ...f32Store(8),
    ...get(7), ...hsum(14), ...f32Store(12),
    ...get(7), ...i32c(16), ...I32_ADD, ...set(7),
    ...get(4), ...get(6), ...I32_ADD, ...tee(4), ...get(8), ...I32_LT_U, ...brIf(0),
    ...END,
    ...END,
    ...END,
  ];
  return [...vec([[...uleb(2), I32], [...uleb(5), V128]]), ...code];
}

function dotI8Body(): number[] {
  // params: 0 q (Int16), 1 data (Int8 rows), 2 n, 3 rowBytes, 4 out (Int32)
  // locals: 5 end, 6 j (row byte), 7 qp (query byte) (i32) · 8 acc (v128)
  const code = [
    ...get(1), ...get(2), ...get(3), ...I32_MUL, ...I32_ADD, ...set(5),
    ...BLOCK,
    ...get(1), ...get(5), ...I32_GE_U, ...brIf(0),
    ...LOOP,
    ...V128_ZERO, ...set(8), ...i32c(0), ...set(6), ...get(0), ...set(7),
    ...LOOP,
    ...get(8), ...get(7), ...V128_LOAD, ...get(1), ...get(6), ...I32_ADD, ...V128_LOAD8X8_S, ...I32X4_DOT_I16X8_S, ...I32X4_ADD, ...set(8),
    ...get(7), ...i32c(16), ...I32_ADD, ...set(7),
    ...get(6), ...i32c(8), ...I32_ADD, ...tee(6), ...get(3), ...I32_LT_U, ...brIf(0),
    ...END,
    ...get(4),
    ...get(8), ...i32Lane(0), ...get(8), ...i32Lane(1), ...I32_ADD, ...get(8), ...i32Lane(2), ...I32_ADD, ...get(8), ...i32Lane(3), ...I32_ADD,
    ...i32Store(0),
    ...get(4), ...i32c(4), ...I32_ADD, ...set(4),
    ...get(1), ...get(3), ...I32_ADD, ...tee(1), ...get(5), ...I32_LT_U, ...brIf(0),
    ...END,
    ...END,
    ...END,
  ];
  return [...vec([[...uleb(3), I32], [...uleb(1), V128]]), ...code];
}

function moduleBytes(): Uint8Array {
  const fn = (params: number) => [0x60, ...vec(new Array(params).fill([I32])), ...vec([])];
  const code = (body: number[]) => [...uleb(body.length), ...body];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([fn(5), fn(8)])),
    ...section(3, vec([[0], [1], [0]])),
    ...section(5, vec([[0x00, ...uleb(1)]])),
    ...section(7, vec([[...str('memory'), 0x02, 0], [...str('dot1'), 0x00, 0], [...str('dot4'), 0x00, 1], [...str('dotI8'), 0x00, 2]])),
    ...section(10, vec([code(dot1Body()), code(dot4Body()), code(dotI8Body())])),
  ]);
}

/** The few WebAssembly APIs used here (tsconfig's lib has no WebAssembly types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

export interface SimdKernel {
  memory: WasmMemory;
  dot1(q: number, data: number, n: number, rowBytes: number, out: number): void;
  dot4(q0: number, q1: number, q2: number, q3: number, data: number, n: number, rowBytes: number, out: number): void;
  dotI8(q: number, data: number, n: number, rowBytes: number, out: number): void;
}

let compiled: object | null | undefined;

/** A fresh kernel instance (own memory of at least `bytes`), or null when SIMD is unavailable. */
export function createSimdKernel(bytes: number): SimdKernel | null {
  if (compiled === undefined) {
    try {
      compiled = wasm ? new wasm.Module(moduleBytes()) : null;
    } catch {
      compiled = null;
    }
  }
  if (!compiled || !wasm) return null;
  const instance = new wasm.Instance(compiled);
  const e = instance.exports as unknown as SimdKernel;
  const pages = Math.ceil(bytes / 65536);
  const have = e.memory.buffer.byteLength / 65536;
  if (pages > have) {
    try {
      e.memory.grow(pages - have);
    } catch {
      return null; // cannot get that much memory: the JS path will say so if it cannot either
    }
  }
  return e;
}
