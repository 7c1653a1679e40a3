// .npy files (format versions 1-3, C order, little-endian) to and from the typed arrays the public loader takes
// and returns: float32 Float32Array, float16 Uint16Array (the bits; node 20 has no Float16Array), int8
// Int8Array, int16 Int16Array, int32 Int32Array, int64 BigInt64Array, uint8 and bool Uint8Array, uint32
// Uint32Array.
import fs from 'node:fs';

const TYPES = [
  // dtype, numpy descr, typed array
  ['float32', '<f4', Float32Array],
  ['float16', '<f2', Uint16Array],
  ['int8', '|i1', Int8Array],
  ['int16', '<i2', Int16Array],
  ['int32', '<i4', Int32Array],
  ['int64', '<i8', BigInt64Array],
  ['uint8', '|u1', Uint8Array],
  ['uint32', '<u4', Uint32Array],
  ['bool', '|b1', Uint8Array],
];

export function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const wide = major >= 2;
  const headerLen = wide ? buf.readUInt32LE(8) : buf.readUInt16LE(8);
  const start = (wide ? 12 : 10) + headerLen;
  const header = buf.toString(major >= 3 ? 'utf8' : 'latin1', wide ? 12 : 10, start);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order is not supported`);
  const type = TYPES.find((t) => t[1] === descr || (descr && t[1].slice(1) === descr.slice(1) && descr[0] === '='));
  if (!type || shapeText === undefined) throw new Error(`${file}: unsupported header ${header.trim()}`);
  const shape = shapeText.split(',').map((s) => s.trim()).filter((s) => s !== '').map(Number);
  const count = shape.reduce((a, b) => a * b, 1);
  const Ctor = type[2];
  const data = new Ctor(count); // a copy: the file's bytes need not be aligned for the typed array
  new Uint8Array(data.buffer).set(buf.subarray(start, start + count * Ctor.BYTES_PER_ELEMENT));
  return { dtype: type[0], shape, data };
}

export function writeNpy(file, dtype, shape, data) {
  const type = TYPES.find((t) => t[0] === dtype);
  if (!type) throw new Error(`${file}: no .npy type for dtype ${dtype}`);
  const Ctor = type[2];
  const values = data instanceof Ctor ? data : Ctor.from(data);
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let header = `{'descr': '${type[1]}', 'fortran_order': False, 'shape': (${dims}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n'; // data starts at a multiple of 64
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const bytes = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), bytes]));
}
