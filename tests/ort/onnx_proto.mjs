// The few protobuf pieces the ORT helpers write by hand (no protobuf library on the GPU machine): varints,
// length-delimited fields, and a TensorProto (dims, data_type, name, raw_data) from a typed array.
// Used by tests/ort/run_ort.mjs and bench/peers/onnx_model.mjs.
export const ONNX_TYPE = { float32: 1, int32: 6, int64: 7, float16: 10 };

export function varint(n) {
  const out = [];
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n; // two's complement, as protobuf encodes negative int64
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}

export const num = (field, v) => [...varint(field << 3), ...varint(v)];
export const bytes = (field, payload) => [...varint((field << 3) | 2), ...varint(payload.length), ...payload];
export const str = (field, s) => bytes(field, [...Buffer.from(s, "utf8")]);

// TensorProto bytes; data is a typed array holding the tensor in its little-endian storage layout.
export function tensorProto(name, type, dims, data) {
  const head = [...dims.flatMap((d) => num(1, d)), ...num(2, ONNX_TYPE[type]), ...str(8, name)];
  const raw = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.concat([Buffer.from(head), Buffer.from(varint((9 << 3) | 2)), Buffer.from(varint(raw.length)), raw]);
}
