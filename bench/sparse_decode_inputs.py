#!/usr/bin/python3
"""Writes .npy inputs of one SparseAttention decode step (Phi-3-small layout) for `wgk run`.

Usage: bench/sparse_decode_inputs.py OUT_DIR [--past P] [--s S] [--dtype float32|float16]
Phi-3-small: N 32, KN 8, H 128, block 64, local 16, vertical stride 8, 8 layouts, batch 1; the cache holds
past + S rows. Values are a fixed-seed uniform [-1, 1); no numpy needed.
"""
import argparse
import os
import random
import struct


def write_npy(path, dtype, shape, values):
    code = {"float32": ("<f4", "f"), "float16": ("<f2", "e"), "int32": ("<i4", "i")}[dtype]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        code[0], "".join("%d, " % d for d in shape) if len(shape) != 1 else "%d," % shape[0])
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), code[1]), *values))


def phi3_layout(num_layout, max_blocks, local, vert_stride):
    step = max(1, vert_stride // num_layout)
    rows, cols = [], []
    for lay in range(num_layout):
        ptr, col = [0], []
        for q in range(max_blocks):
            col += [k for k in range(q + 1) if q - k < local or (k + lay * step + 1) % vert_stride == 0]
            ptr.append(len(col))
        rows.append(ptr)
        cols.append(col)
    width = max(len(c) for c in cols)
    return rows, [c + [-1] * (width - len(c)) for c in cols]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--past", type=int, default=2047)
    ap.add_argument("--s", type=int, default=1)
    ap.add_argument("--dtype", default="float32")
    a = ap.parse_args()
    N, KN, H, block, S = 32, 8, 128, 64, a.s
    cache = a.past + S
    rng = random.Random(1)
    os.makedirs(a.out, exist_ok=True)

    def rand(name, shape):
        n = 1
        for d in shape:
            n *= d
        write_npy(os.path.join(a.out, name + ".npy"), a.dtype, shape, [rng.uniform(-1, 1) for _ in range(n)])
    rand("query", [1, S, N * H])
    rand("key", [1, S, KN * H])
    rand("value", [1, S, KN * H])
    rand("past_key", [1, KN, cache, H])
    rand("past_value", [1, KN, cache, H])
    rows, cols = phi3_layout(8, -(-cache // block), 16, 8)
    write_npy(os.path.join(a.out, "block_row_indices.npy"), "int32", [8, len(rows[0])], sum(rows, []))
    write_npy(os.path.join(a.out, "block_col_indices.npy"), "int32", [8, len(cols[0])], sum(cols, []))
    write_npy(os.path.join(a.out, "total_sequence_length.npy"), "int32", [1], [cache])
    write_npy(os.path.join(a.out, "key_total_sequence_lengths.npy"), "int32", [1], [cache])


if __name__ == "__main__":
    main()
