// A single-node ONNX model (ModelProto bytes) written directly: the few protobuf fields a node needs.
import { ONNX_TYPE as TYPE, bytes, num, str } from "../../tests/ort/onnx_proto.mjs";

function valueInfo(name, dtype, shape) {
  const dims = shape.flatMap((d) => bytes(1, num(1, d)));
  const tensorType = [...num(1, TYPE[dtype]), ...bytes(2, dims)];
  return [...str(1, name), ...bytes(2, bytes(1, tensorType))];
}

// attrs: {name: integer | float}; inputs/outputs: [{name, dtype, shape}]; "" names an absent optional input.
export function singleNodeModel({ opType, domain = "", opset, inputs, outputs, attrs = {}, nodeInputs }) {
  const attr = Object.entries(attrs).flatMap(([name, v]) =>
    bytes(5, Number.isInteger(v) ? [...str(1, name), ...num(3, v), ...num(20, 2)]
      : [...str(1, name), ...[0x15, ...new Uint8Array(new Float32Array([v]).buffer)], ...num(20, 1)]));
  const names = nodeInputs ?? inputs.map((i) => i.name);
  const node = [...names.flatMap((n) => str(1, n)), ...outputs.flatMap((o) => str(2, o.name)), ...str(3, "n0"),
    ...str(4, opType), ...attr, ...(domain ? str(7, domain) : [])];
  const graph = [...bytes(1, node), ...str(2, "g"), ...inputs.flatMap((i) => bytes(11, valueInfo(i.name, i.dtype, i.shape))),
    ...outputs.flatMap((o) => bytes(12, valueInfo(o.name, o.dtype, o.shape)))];
  const opsets = [...bytes(8, [...str(1, ""), ...num(2, opset)])];
  if (domain) opsets.push(...bytes(8, [...str(1, domain), ...num(2, 1)]));
  return Uint8Array.from([...num(1, 10), ...opsets, ...bytes(7, graph)]);
}
