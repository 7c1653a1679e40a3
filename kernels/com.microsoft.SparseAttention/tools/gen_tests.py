#!/usr/bin/python3
"""Writes build/webgpu/test.json and bench.json of com.microsoft.SparseAttention (wgk's test schema 1).

Each case is one line of CASES below; the inputs follow from it (seeded generators, the Phi-3-small layout
generator for the CSR tensors), the expected values from wgk's double reference ("sparse_attention").
"""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
WEBGPU = os.path.join(HERE, "..", "build", "webgpu")


def case(cid, B=1, S=16, N=2, KN=1, H=16, block=16, layouts=1, local=2, vstride=2, pasts=None, kts=None,
         cache=None, packed=False, rotary="off", rot=None, dtype="float32", scale=None, seed=1, desc="",
         total=None, layout_data=None, variant=None, tunables=None):
    """pasts: per-batch past lengths (None: prompt with key totals kts, default S each)."""
    prompt = pasts is None
    if prompt:
        kts = kts or [S] * B
        tot = S
    else:
        kts = [p + S for p in pasts]
        tot = total or max(kts)
    cache = cache or max(tot, 1)
    max_blocks = -(-cache // block)
    hidden = (N + 2 * KN) * H if packed else N * H

    def gen(shape, s, kind="uniform"):
        return {"dtype": dtype, "shape": shape, "generator": {"kind": kind, "seed": s}}

    inputs = {"queryT": gen([B, S, hidden], seed)}
    if not packed:
        inputs["keyT"] = gen([B, S, KN * H], seed + 1)
        inputs["valueT"] = gen([B, S, KN * H], seed + 2)
    inputs["pastKeyT"] = gen([B, KN, cache, H], seed + 3)
    inputs["pastValueT"] = gen([B, KN, cache, H], seed + 4)
    if layout_data:
        row, col = layout_data
        inputs["blockRowIndicesT"] = {"dtype": "int32", "shape": [len(row), len(row[0])], "data": row}
        inputs["blockColIndicesT"] = {"dtype": "int32", "shape": [len(col), len(col[0])], "data": col}
    else:
        lay = {"num_layout": layouts, "max_blocks": max_blocks, "local_blocks": local, "vert_stride": vstride}
        inputs["blockRowIndicesT"] = {"dtype": "int32", "generator": dict(kind="phi3_layout_row", **lay)}
        inputs["blockColIndicesT"] = {"dtype": "int32", "generator": dict(kind="phi3_layout_col", **lay)}
    inputs["totalSequenceLengthT"] = {"dtype": "int32", "shape": [1], "data": [tot]}
    inputs["keyTotalSequenceLengthsT"] = {"dtype": "int32", "shape": [B], "data": kts}
    attrs = {"num_heads": N, "kv_num_heads": KN, "sparse_block_size": block}
    if scale is not None:
        attrs["scale"] = scale
    if rotary != "off":
        attrs["do_rotary"] = 1
        attrs["rotary_interleaved"] = 1 if rotary == "interleaved" else 0
        half = (rot or H) // 2
        rows = max(cache, tot)
        inputs["cosCacheT"] = {"dtype": dtype, "shape": [rows, half], "generator": {"kind": "rotary_cos"}}
        inputs["sinCacheT"] = {"dtype": dtype, "shape": [rows, half], "generator": {"kind": "rotary_sin"}}
    c = {"id": cid, "description": desc or "B=%d S=%d N=%d KN=%d H=%d block=%d layouts=%d %s" % (
        B, S, N, KN, H, block, layouts, "prompt" if prompt else "past %s" % pasts),
         "inputs": inputs, "attrs": attrs, "expected": {"reference": "sparse_attention"}}
    if variant:
        c["variant"] = variant
        if dtype == "float16":  # float16 runs everywhere: without shader-f16, as two halves per u32 word
            c["variantWithout"] = {"shader-f16": variant + "_f16packed"}
    if tunables:
        c["tunables"] = tunables
    return c


# A hand-written layout: two layouts, columns listed out of order, -1 padding, an empty row.
HAND = ([[0, 1, 3, 4, 6], [0, 0, 2, 3, 4]], [[0, 1, 0, 2, 1, 0], [1, 0, 2, 0, -1, -1]])
# for the flash pass's row-range walk: layout 0 leaves block row 2 empty, layout 1 lists a non-causal block
# (3 in row 1); both pad with valid-looking columns a walk past a row's range would take
HAND_FLASH = ([[0, 1, 3, 3, 6], [0, 1, 3, 5, 6]], [[0, 0, 1, 3, 1, 0, 2, 2], [0, 1, 3, 2, 0, 3, 1, 2]])

CASES = [
    case("prompt_b16_f32", S=32, N=2, KN=1, H=16, block=16),
    case("prompt_b32_f32", S=64, N=4, KN=2, H=8, block=32, local=1),
    case("prompt_b64_f32", S=128, N=2, KN=2, H=8, block=64, local=1, vstride=2),
    case("prompt_b128_f32", S=256, N=1, KN=1, H=8, block=128, local=1),
    case("prompt_gqa1_f32", S=48, N=4, KN=4, H=16),
    case("prompt_gqa2_f32", S=48, N=4, KN=2, H=16),
    case("prompt_gqa4_f32", S=48, N=8, KN=2, H=16, layouts=4, vstride=4),
    case("prompt_packed_f32", S=40, N=4, KN=2, H=16, packed=True),
    case("prompt_padding_f32", B=2, S=40, N=2, KN=1, H=16, kts=[40, 17]),
    case("prompt_layouts4_f32", S=64, N=8, KN=2, H=8, layouts=4, local=1, vstride=4),
    case("prompt_head64_f32", S=32, N=2, KN=1, H=64),
    case("prompt_head128_f32", S=32, N=2, KN=1, H=128, block=32),
    case("prompt_scale_f32", S=32, N=2, KN=1, H=16, scale=0.3),
    case("prompt_neox_f32", S=32, N=2, KN=1, H=16, rotary="neox", rot=16),
    case("prompt_interleaved_f32", S=32, N=2, KN=1, H=32, rotary="interleaved", rot=32),
    case("prompt_partial_neox_f32", S=32, N=2, KN=1, H=64, rotary="neox", rot=32),
    case("prompt_partial_interleaved_packed_f32", S=24, N=4, KN=2, H=32, rotary="interleaved", rot=16, packed=True),
    case("prompt_hand_layout_f32", S=64, N=2, KN=1, H=8, block=16, layout_data=HAND),
    case("decode_s1_f32", S=1, N=4, KN=2, H=16, pasts=[37], cache=64),
    case("decode_s1_gqa4_b64_f32", S=1, N=8, KN=2, H=64, block=64, layouts=4, local=1, vstride=2, pasts=[200], cache=256),
    case("decode_s1_batch2_f32", B=2, S=1, N=4, KN=2, H=16, pasts=[5, 40], cache=48),
    case("decode_s1_rotary_packed_f32", B=2, S=1, N=4, KN=1, H=32, pasts=[9, 30], cache=40, packed=True,
         rotary="neox", rot=32),
    case("chunk_s3_f32", S=3, N=4, KN=2, H=16, pasts=[14], cache=32),
    case("chunk_s3_batch2_interleaved_f32", B=2, S=3, N=4, KN=2, H=16, pasts=[20, 2], cache=32, rotary="interleaved",
         rot=16),
    case("chunk_s3_total_above_f32", B=2, S=3, N=2, KN=1, H=8, pasts=[4, 10], cache=32, total=20),
    # the split decode path (flash-decoding): S <= 4 over a cache of at least DECODE_MIN_KEYS rows
    case("decode_split_s1_gqa4_b64_f32", S=1, N=8, KN=2, H=64, block=64, layouts=4, local=2, vstride=4, pasts=[1500],
         cache=1536, variant="separate_decode"),
    case("decode_split_s3_batch2_b16_f32", B=2, S=3, N=8, KN=2, H=32, block=16, local=4, vstride=4, pasts=[500, 1203],
         cache=1216, variant="separate_decode"),
    case("decode_split_s1_partial_neox_packed_f32", B=2, S=1, N=8, KN=2, H=64, block=64, layouts=4, local=2, vstride=4,
         pasts=[777, 2000], cache=2048, packed=True, rotary="neox", rot=32, variant="packed_rotary_decode"),
    case("decode_split_s1_gqa1_layouts4_b16_f32", S=1, N=4, KN=4, H=16, block=16, layouts=4, local=3, vstride=4,
         pasts=[900], cache=1024, variant="separate_decode"),
    case("decode_split_s3_splitblocks3_f32", B=2, S=3, N=8, KN=2, H=32, block=16, layouts=4, local=5, vstride=3,
         pasts=[640, 1100], cache=1120, tunables={"SPLIT_BLOCKS": 3}, variant="separate_decode"),
    case("decode_split_prompt_s2_big_cache_f32", S=2, N=8, KN=2, H=32, block=16, cache=512, variant="separate_decode"),
    case("decode_split_s3_interleaved_f16", S=3, N=8, KN=2, H=128, block=64, layouts=4, local=2, vstride=4,
         pasts=[1000], cache=1024, rotary="interleaved", rot=128, dtype="float16", variant="separate_rotary_decode"),
    case("decode_split_s1_batch2_b16_f16", B=2, S=1, N=4, KN=1, H=128, block=16, layouts=4, local=4, vstride=8,
         pasts=[600, 1900], cache=1920, dtype="float16", variant="separate_decode"),
    # the flash prompt (`*_flash`): query tiles of one GQA group's heads against K/V tiles in workgroup memory
    case("flash_prompt_h128_gqa4_partial_block_f32", S=100, N=8, KN=2, H=128, block=32, layouts=4, local=2, vstride=2,
         variant="separate_flash"),
    case("flash_prompt_gqa8_keytile8_f32", S=72, N=8, KN=1, H=32, block=16, layouts=2, local=2, vstride=3,
         tunables={"FLASH_KEY_TILE": 8}, variant="separate_flash"),
    case("flash_prompt_gqa2_rows8_padding_f32", B=2, S=45, N=4, KN=2, H=24, block=16, layouts=2, kts=[45, 21],
         tunables={"FLASH_ROWS": 8}, variant="separate_flash"),
    case("flash_chunk_s20_past37_rotary_packed_f32", S=20, N=4, KN=2, H=32, pasts=[37], cache=64, packed=True,
         rotary="neox", rot=32, variant="packed_rotary_flash"),
    # register tile shapes (FLASH_WG): 4 rows x 1 key and 4 rows x 2 vec4 columns (WG 128), the one-key
    # one-column shape (WG 1024), 4 x 4 keys with 2 columns (the default 64), and a hand layout
    case("flash_prompt_h128_gqa4_wg128_f32", S=100, N=8, KN=2, H=128, block=32, layouts=4, local=2, vstride=2,
         tunables={"FLASH_WG": 128}, variant="separate_flash"),
    case("flash_prompt_h64_gqa4_wg1024_f32", S=200, N=8, KN=2, H=64, block=64, layouts=4, local=1, vstride=2,
         tunables={"FLASH_WG": 1024}, variant="separate_flash"),
    case("flash_prompt_h64_gqa4_sk4_f32", S=200, N=8, KN=2, H=64, block=64, layouts=4, local=1, vstride=2,
         variant="separate_flash"),
    case("flash_prompt_hand_layout_f32", S=64, N=4, KN=1, H=32, block=16, layout_data=HAND_FLASH,
         variant="separate_flash"),
    # FLASH_ROWS 0 turns the flash variants off: the plain attention pass, the fallback on small workgroup memory
    case("plain_prompt_gqa4_fallback_f32", S=48, N=8, KN=2, H=16, layouts=4, vstride=4,
         tunables={"FLASH_ROWS": 0}, variant="separate"),
    # the split decode with more splits, tiles smaller than a block and past lengths off the block grid
    case("decode_split_s1_h128_gqa4_splits2_f32", S=1, N=8, KN=2, H=128, block=64, layouts=4, local=2, vstride=3,
         pasts=[1001], cache=1088, tunables={"SPLIT_BLOCKS": 2}, variant="separate_decode"),
    case("decode_split_s2_gqa8_keytile8_f32", S=2, N=16, KN=2, H=32, block=32, layouts=8, local=3, vstride=4,
         pasts=[777], cache=1024, tunables={"DECODE_KEY_TILE": 8, "DECODE_WG": 64}, variant="separate_decode"),
    case("decode_split_s1_h24_oddwg_f32", B=2, S=1, N=6, KN=3, H=24, block=16, layouts=3, local=2, vstride=5,
         pasts=[299, 450], cache=464, tunables={"DECODE_WG": 100}, variant="separate_decode"),
    # splits that ran: a batch whose rows hold 2 and ~90 union blocks (the merge reads each row's own count),
    # and a past on a block's first key with a union count off the SPLIT_BLOCKS grid
    case("decode_split_s1_batch2_uneven_splits_f32", B=2, S=1, N=8, KN=2, H=64, block=16, layouts=4, local=3,
         vstride=4, pasts=[20, 1500], cache=1536, variant="separate_decode"),
    case("decode_split_s1_block_start_splitblocks4_f32", S=1, N=8, KN=2, H=32, block=32, layouts=2, local=3,
         vstride=3, pasts=[1024], cache=1056, tunables={"SPLIT_BLOCKS": 4}, variant="separate_decode"),
    # the merge's workgroup per (b * S + s, h): a head wider than its 64 column lanes (H / 4 = 68: a second,
    # partial column round), two batches of two rows
    # kv_append folded into the split (no rotary): packed [Q|K|V] sources, S = DECODE_MAX_S rows crossing a block
    # boundary (past 14 of blocks of 16) beside a long past, in-place caches checked
    case("decode_split_s4_packed_fused_append_f32", B=2, S=4, N=8, KN=2, H=32, block=16, layouts=2, local=2,
         vstride=3, pasts=[300, 14], cache=320, packed=True, variant="packed_decode"),
    # DECODE_FUSED_APPEND 0 (and DECODE_MERGE_FOLD 0, else the folded form, kv_append and the split with the merge,
    # comes first): the three-pass form (kv_append, split, merge) a device with 8 storage buffers takes
    case("decode_split_s3_append_pass_f32", B=2, S=3, N=8, KN=2, H=32, block=16, layouts=2, local=2,
         vstride=3, pasts=[300, 14], cache=320, tunables={"DECODE_FUSED_APPEND": 0, "DECODE_MERGE_FOLD": 0}, variant="separate_decode_append"),
    case("decode_split_s2_h272_merge_columns_f32", B=2, S=2, N=4, KN=2, H=272, block=32, layouts=2, local=2,
         vstride=3, pasts=[300, 700], cache=736, variant="separate_decode"),
    case("prompt_b16_f16", S=32, N=2, KN=1, H=16, dtype="float16"),
    case("prompt_gqa4_packed_f16", S=40, N=8, KN=2, H=16, packed=True, layouts=4, vstride=4, dtype="float16"),
    case("prompt_partial_neox_f16", S=32, N=2, KN=1, H=64, rotary="neox", rot=32, dtype="float16"),
    case("decode_s1_batch2_f16", B=2, S=1, N=4, KN=2, H=128, block=32, pasts=[3, 70], cache=96, dtype="float16"),
    case("chunk_s3_interleaved_f16", S=3, N=2, KN=2, H=64, block=64, pasts=[61], cache=128, rotary="interleaved",
         rot=64, dtype="float16"),
    case("decode_b128_layouts4_f16", S=1, N=4, KN=1, H=8, block=128, layouts=4, local=1, vstride=2, pasts=[300],
         cache=384, dtype="float16"),
    # packed [Q|K|V] with rotary in float16: K rotated out of the query buffer into the cache (both pairings)
    case("decode_split_s1_partial_neox_packed_f16", B=2, S=1, N=8, KN=2, H=64, block=64, layouts=4, local=2, vstride=4,
         pasts=[777, 2000], cache=2048, packed=True, rotary="neox", rot=32, dtype="float16",
         variant="packed_rotary_decode"),
    case("decode_split_s1_batch2_uneven_splits_f16", B=2, S=1, N=4, KN=1, H=64, block=32, layouts=4, local=2,
         vstride=4, pasts=[10, 900], cache=960, dtype="float16", variant="separate_decode"),
    case("decode_split_s4_packed_fused_append_f16", B=2, S=4, N=8, KN=2, H=32, block=16, layouts=2, local=2,
         vstride=3, pasts=[300, 14], cache=320, packed=True, dtype="float16", variant="packed_decode"),
    case("decode_split_s3_append_pass_f16", B=2, S=3, N=8, KN=2, H=32, block=16, layouts=2, local=2,
         vstride=3, pasts=[300, 14], cache=320, dtype="float16", tunables={"DECODE_FUSED_APPEND": 0, "DECODE_MERGE_FOLD": 0},
         variant="separate_decode_append"),
    case("decode_split_s2_h272_merge_columns_wg64_f16", B=2, S=2, N=4, KN=2, H=272, block=32, layouts=2, local=2,
         vstride=3, pasts=[300, 700], cache=736, dtype="float16", tunables={"WORKGROUP_SIZE": 64},
         variant="separate_decode"),
    case("prompt_partial_interleaved_packed_f16", S=24, N=4, KN=2, H=32, rotary="interleaved", rot=16, packed=True,
         dtype="float16", variant="packed_rotary_flash"),
    # the flash prompt in float16 (packed two per u32 without shader-f16): Phi-3's head size and GQA 4 with a
    # partial last block and padding; FLASH_ROWS 0 (or too little workgroup memory) falls back to the plain pass
    case("flash_prompt_h128_gqa4_padding_f16", B=2, S=100, N=8, KN=2, H=128, block=32, layouts=4, local=2, vstride=2,
         kts=[100, 37], dtype="float16", variant="separate_flash"),
    case("flash_prompt_gqa8_keytile8_f16", S=72, N=8, KN=1, H=32, block=16, layouts=2, local=2, vstride=3,
         tunables={"FLASH_KEY_TILE": 8}, dtype="float16", variant="separate_flash"),
    case("flash_prompt_h128_gqa4_wg128_f16", S=100, N=8, KN=2, H=128, block=32, layouts=4, local=2, vstride=2,
         tunables={"FLASH_WG": 128}, dtype="float16", variant="separate_flash"),
    case("flash_prompt_hand_layout_f16", S=64, N=4, KN=1, H=32, block=16, layout_data=HAND_FLASH, dtype="float16",
         variant="separate_flash"),
    case("plain_prompt_gqa4_fallback_f16", S=48, N=8, KN=2, H=16, layouts=4, vstride=4,
         tunables={"FLASH_ROWS": 0}, dtype="float16", variant="separate"),
]

# the subgroup split (`separate_decode_sg`, chosen first where the device has subgroups of >= 8 invocations):
# more splits than blocks in flight, U = 3 keys in flight over S = DECODE_MAX_S rows, a head not a multiple of
# 32 (lanes past the row's columns idle), and 128 lane groups reduced in rounds
SG_CASES = [
    case("decode_sg_s4_gqa2_keys3_splits_b32_f32", B=2, S=4, N=4, KN=2, H=128, block=32, layouts=2, local=3,
         vstride=3, pasts=[700, 1234], cache=1280, tunables={"DECODE_SG_KEYS": 3, "SPLIT_BLOCKS": 2},
         variant="separate_decode_sg"),
    case("decode_sg_s1_h24_gqa2_wg32_keys1_f32", B=2, S=1, N=6, KN=3, H=24, block=16, layouts=3, local=2, vstride=5,
         pasts=[299, 450], cache=464, tunables={"DECODE_WG": 32, "DECODE_SG_KEYS": 1}, variant="separate_decode_sg"),
    case("decode_sg_s1_h128_gqa4_wg1024_rounds_f32", S=1, N=8, KN=2, H=128, block=64, layouts=4, local=4, vstride=4,
         pasts=[1700], cache=1792, tunables={"DECODE_WG": 1024}, variant="separate_decode_sg"),
    case("decode_sg_s3_gqa8_h32_b128_f32", B=2, S=3, N=8, KN=1, H=32, block=128, layouts=8, local=1, vstride=2,
         pasts=[1000, 129], cache=1152, variant="separate_decode_sg"),
    case("decode_sg_s4_gqa4_keys3_append_f16", B=2, S=4, N=8, KN=2, H=64, block=32, layouts=4, local=2, vstride=3,
         pasts=[300, 45], cache=352, dtype="float16", tunables={"DECODE_SG_KEYS": 3}, variant="separate_decode_sg"),
    # the key loop without the next step's prefetch, and the folded merge one split after another (the forms
    # before DECODE_SG_PREFETCH and DECODE_MERGE_PAR); lane groups of 8 where the device has 16 (DECODE_SG_LANES
    # 8), and of 32 where it has 32 (else 16 or 8); one block a split over a long past (dozens of
    # splits): the parallel merge's rounds of four records end on a partial round
    case("decode_sg_s2_h128_gqa4_serial_f32", S=2, N=8, KN=2, H=128, block=32, layouts=4, local=3, vstride=2,
         pasts=[900], cache=960, tunables={"DECODE_SG_PREFETCH": 0, "DECODE_MERGE_PAR": 0}, variant="separate_decode_sg"),
    case("decode_sg_s1_h64_lanes8_keys3_f16", B=2, S=1, N=4, KN=1, H=64, block=16, layouts=2, local=2, vstride=3,
         pasts=[500, 77], cache=512, dtype="float16", tunables={"DECODE_SG_LANES": 8, "DECODE_SG_KEYS": 3},
         variant="separate_decode_sg"),
    case("decode_sg_s1_h128_gqa4_lanes32_f32", S=1, N=8, KN=2, H=128, block=64, layouts=4, local=4, vstride=4,
         pasts=[1500], cache=1536, tunables={"DECODE_SG_LANES": 32}, variant="separate_decode_sg"),
    case("decode_sg_s1_h32_split1_f16", B=2, S=1, N=2, KN=1, H=32, block=16, layouts=2, local=3, vstride=2,
         pasts=[1180, 600], cache=1200, dtype="float16", tunables={"SPLIT_BLOCKS": 1}, variant="separate_decode_sg"),
]

# the tiled prompt (`*_tiled`, PROMPT_FORM 1: 64 positions of one head a workgroup, S and PV as register-tiled
# products through workgroup memory): blocks of 16, 32, 64 and 128 (several query blocks a tile below 64, two
# key tiles a block at 128), GQA 1, 2 and 4, 1 to 4 layouts, sequences off the 64 grid with padding, a chunk
# after per-batch pasts off the grid, packed QKV, rotary in both pairings, H 64, 128 and 256, and the smallest
# d and V chunks (PROMPT_TILE_DC 16, PROMPT_TILE_VC 8)
T1 = {"PROMPT_FORM": 1}
TILED_CASES = [
    case("tiled_prompt_h64_b64_gqa2_f32", S=128, N=2, KN=1, H=64, block=64, layouts=2, local=1, vstride=2, tunables=T1,
         variant="separate_tiled"),
    case("tiled_prompt_h128_gqa4_b32_padding_f32", B=2, S=100, N=8, KN=2, H=128, block=32, layouts=4, local=2,
         vstride=2, kts=[100, 37], tunables=T1, variant="separate_tiled"),
    case("tiled_prompt_h128_gqa4_b32_padding_f16", B=2, S=100, N=8, KN=2, H=128, block=32, layouts=4, local=2,
         vstride=2, kts=[100, 37], dtype="float16", tunables=T1, variant="separate_tiled"),
    case("tiled_prompt_h64_b16_layouts2_f16", S=80, N=4, KN=1, H=64, block=16, layouts=2, local=2, vstride=3,
         dtype="float16", tunables=T1, variant="separate_tiled"),
    case("tiled_chunk_s50_past_h64_b32_f32", B=2, S=50, N=4, KN=2, H=64, block=32, layouts=2, local=2, vstride=2,
         pasts=[30, 77], cache=128, tunables=T1, variant="separate_tiled"),
    case("tiled_prompt_h64_b128_gqa1_f32", S=200, N=2, KN=2, H=64, block=128, local=1, vstride=2, tunables=T1,
         variant="separate_tiled"),
    case("tiled_prompt_h128_b64_gqa4_layouts4_f16", S=192, N=8, KN=2, H=128, block=64, layouts=4, local=1, vstride=2,
         dtype="float16", tunables=T1, variant="separate_tiled"),
    case("tiled_prompt_h128_b64_dc16_vc8_f32", S=130, N=4, KN=1, H=128, block=64, layouts=2, local=1, vstride=2,
         tunables=dict(T1, PROMPT_TILE_DC=16, PROMPT_TILE_VC=8), variant="separate_tiled"),
    case("tiled_prompt_packed_neox_f16", S=70, N=4, KN=2, H=64, block=32, layouts=2, local=2, vstride=2, packed=True,
         rotary="neox", rot=32, dtype="float16", tunables=T1, variant="packed_rotary_tiled"),
    case("tiled_prompt_packed_f32", S=96, N=4, KN=2, H=64, block=32, layouts=4, local=1, vstride=2, packed=True,
         tunables=T1, variant="packed_tiled"),
    case("tiled_prompt_interleaved_f32", S=64, N=2, KN=1, H=128, block=64, local=1, vstride=2,
         rotary="interleaved", rot=64, tunables=T1, variant="separate_rotary_tiled"),
    case("tiled_prompt_h256_f32", S=72, N=2, KN=1, H=256, block=64, local=1, vstride=2, tunables=T1,
         variant="separate_tiled"),
    # 8 rows an invocation (PROMPT_TILE_ROWS 8: 128 invocations, 32 FMAs per 3 workgroup loads in S), so two
    # Q/K items an invocation at 32 dimensions (lavapipe's chunk; H 64 and blocks of 64 keep its compile short)
    case("tiled_prompt_h64_rows8_b64_padding_f32", B=2, S=100, N=4, KN=2, H=64, block=64, layouts=2, local=1,
         vstride=2, kts=[100, 37], tunables=dict(T1, PROMPT_TILE_ROWS=8), variant="separate_tiled"),
    case("tiled_prompt_packed_rows8_dc16_vc8_f32", S=130, N=4, KN=2, H=128, block=64, layouts=2, local=1, vstride=2,
         packed=True, tunables=dict(T1, PROMPT_TILE_ROWS=8, PROMPT_TILE_DC=16, PROMPT_TILE_VC=8),
         variant="packed_tiled"),
    # the hand layout of the flash cases (an empty block row, a non-causal column, columns out of order) at H 64:
    # four query blocks of 16 in one tile, each with its own row of the layout
    case("tiled_prompt_hand_layout_f32", S=64, N=4, KN=1, H=64, block=16, layout_data=HAND_FLASH, tunables=T1,
         variant="separate_tiled"),
    # more than 32 key tiles and blocks (two words of each bit set: the walk from tile to tile across a word)
    case("tiled_prompt_long_s2200_b64_f32", S=2200, N=2, KN=1, H=64, block=64, layouts=2, local=1, vstride=8,
         tunables=T1, variant="separate_tiled"),
    # each chunk's loads issued where they are stored (PROMPT_TILE_PREFETCH 0), at 4 and at 8 rows an invocation
    case("tiled_prompt_noprefetch_b32_padding_f32", B=2, S=100, N=8, KN=2, H=128, block=32, layouts=4, local=2,
         vstride=2, kts=[100, 37], tunables=dict(T1, PROMPT_TILE_PREFETCH=0), variant="separate_tiled"),
    case("tiled_chunk_noprefetch_rows8_b16_f16", B=2, S=50, N=4, KN=1, H=64, block=16, layouts=2, local=2,
         vstride=3, pasts=[30, 77], cache=128, dtype="float16",
         tunables=dict(T1, PROMPT_TILE_ROWS=8, PROMPT_TILE_PREFETCH=0), variant="separate_tiled"),
]

# the key-per-invocation split (DECODE_FORM 1 in `separate_decode_sg_fold`: union lists from kv_append's extra
# workgroups, a key an invocation, PV by columns): past lengths off the block grid, batch 2 with unequal pasts,
# GQA 1 / 2 / 4 / 8, S up to DECODE_MAX_S, one block a split (splits left empty), tiles of fewer keys than a split
# (DECODE_WG 64 over 8 blocks of 32), heads of 6 and 68 vec4 (idle invocations in the PV step: 32 = 5 x 6 + 2,
# 128 = 68 + 60); float16 packed where the device lacks shader-f16
KP = {"DECODE_FORM": 1}
KP_CASES = [
    case("decode_kp_s1_h128_gqa4_b64_f32", S=1, N=8, KN=2, H=128, block=64, layouts=4, local=2, vstride=3,
         pasts=[1001], cache=1088, tunables=KP, variant="separate_decode_sg_fold"),
    case("decode_kp_s1_batch2_uneven_h128_f16", B=2, S=1, N=8, KN=2, H=128, block=32, layouts=4, local=3, vstride=4,
         pasts=[20, 1500], cache=1536, dtype="float16", tunables=KP, variant="separate_decode_sg_fold"),
    case("decode_kp_s3_batch2_b16_f32", B=2, S=3, N=8, KN=2, H=32, block=16, local=4, vstride=4, pasts=[500, 1203],
         cache=1216, tunables=KP, variant="separate_decode_sg_fold"),
    case("decode_kp_s1_split1_empty_splits_f16", B=2, S=1, N=2, KN=1, H=32, block=16, layouts=2, local=3, vstride=2,
         pasts=[1180, 600], cache=1200, dtype="float16", tunables=dict(KP, SPLIT_BLOCKS=1),
         variant="separate_decode_sg_fold"),
    case("decode_kp_s2_wg64_tiles_f32", S=2, N=4, KN=1, H=64, block=32, layouts=2, local=3, vstride=3, pasts=[900],
         cache=960, tunables=dict(KP, DECODE_WG=64, SPLIT_BLOCKS=8), variant="separate_decode_sg_fold"),
    case("decode_kp_s1_h24_gqa2_wg32_f32", B=2, S=1, N=6, KN=3, H=24, block=16, layouts=3, local=2, vstride=5,
         pasts=[299, 450], cache=464, tunables=dict(KP, DECODE_WG=32), variant="separate_decode_sg_fold"),
    case("decode_kp_s1_h272_f16", S=1, N=4, KN=2, H=272, block=32, layouts=2, local=2, vstride=3, pasts=[700],
         cache=736, dtype="float16", tunables=KP, variant="separate_decode_sg_fold"),
    case("decode_kp_s4_gqa8_b32_f32", S=4, N=16, KN=2, H=32, block=32, layouts=8, local=3, vstride=4, pasts=[777],
         cache=1024, tunables=KP, variant="separate_decode_sg_fold"),
    case("decode_kp_s1_gqa1_layouts4_f16", S=1, N=4, KN=4, H=16, block=16, layouts=4, local=3, vstride=4,
         pasts=[900], cache=1024, dtype="float16", tunables=KP, variant="separate_decode_sg_fold"),
    # 3 V rows in flight (DECODE_KP_VROWS 3): the PV step's loads in several rounds, the last one partial
    case("decode_kp_s1_vrows3_f32", S=1, N=8, KN=2, H=64, block=32, layouts=4, local=2, vstride=3, pasts=[1000],
         cache=1056, tunables=dict(KP, DECODE_KP_VROWS=3), variant="separate_decode_sg_fold"),
]


def fold_twin(c):
    """A `separate_decode_sg` case as the folded merge (`separate_decode_sg_fold`, the default, id `..._fold_<dtype>`)
    and, with DECODE_MERGE_FOLD 0, as itself (the merge its own pass)."""
    t = json.loads(json.dumps(c))
    stem, dt = t["id"].rsplit("_", 1)
    t["id"] = "%s_fold_%s" % (stem, dt)
    t["variant"] = "separate_decode_sg_fold"
    c["tunables"] = dict(c.get("tunables", {}), DECODE_MERGE_FOLD=0)
    return [sg_without(t), sg_without(c)]


def with_sg_twins(cases):
    """Every `separate_decode` case twice: as the subgroup form (id `..._sg_<dtype>`; on a device without subgroups
    the old form) and, with DECODE_SUBGROUPS 0, as the staged split it replaces; every subgroup case both with
    the merge folded into the split and with it as its own pass (fold_twin)."""
    out = []
    for c in cases:
        if c.get("variant") != "separate_decode":
            out.extend(fold_twin(c) if c.get("variant") == "separate_decode_sg" else [c])
            continue
        wg = c.get("tunables", {}).get("DECODE_WG", 128)  # the default
        if wg % 8 == 0:
            t = json.loads(json.dumps(c))
            stem, dt = t["id"].rsplit("_", 1)
            t["id"] = "%s_sg_%s" % (stem, dt)
            t["variant"] = "separate_decode_sg"
            out.extend(fold_twin(t))
        c["tunables"] = dict(c.get("tunables", {}), DECODE_SUBGROUPS=0)
        out.append(c)
    return out


# the flash prompt with the queries in registers (`*_flash_sg`): a head size of 3 x 32, GQA 2, block 16, padding
FSG_CASES = [
    case("flash_sg_prompt_h96_gqa2_b16_padding_f32", B=2, S=70, N=6, KN=3, H=96, block=16, layouts=3, local=2,
         vstride=3, kts=[70, 33], variant="separate_flash_sg"),
    # 2 rows a lane group (FLASH_SG_ROWS 2): a chunk after per-batch pasts, and float16 in workgroups of 128
    case("flash_sg_chunk_s50_rows2_past_f32", B=2, S=50, N=8, KN=2, H=128, block=32, layouts=4, local=2, vstride=2,
         pasts=[30, 7], cache=96, tunables={"FLASH_SG_ROWS": 2}, variant="separate_flash_sg"),
    case("flash_sg_prompt_h64_rows2_wg128_f16", S=64, N=4, KN=1, H=64, block=16, layouts=2, local=2, vstride=3,
         dtype="float16", tunables={"FLASH_SG_ROWS": 2, "FLASH_SG_WG": 128}, variant="separate_flash_sg"),
    # lane groups of 16 (FLASH_SG_LANES 16; where subgroups hold fewer, e.g. lavapipe's 8, the same cases take 8)
    case("flash_sg_prompt_h128_gqa4_lanes16_f32", B=2, S=100, N=8, KN=2, H=128, block=32, layouts=4, local=2,
         vstride=2, kts=[100, 61], tunables={"FLASH_SG_LANES": 16}, variant="separate_flash_sg"),
    case("flash_sg_chunk_h64_lanes16_rows2_f16", S=40, N=4, KN=2, H=64, block=16, layouts=2, local=2, vstride=3,
         pasts=[25], cache=80, dtype="float16", tunables={"FLASH_SG_LANES": 16, "FLASH_SG_ROWS": 2},
         variant="separate_flash_sg"),
    # 8 rows a lane group (FLASH_SG_ROWS 8: two vec4 of rows per K/V load): padding and a partial last tile, a
    # chunk after per-batch pasts in float16, and with lanes of 16 where the device has them
    case("flash_sg_prompt_h128_gqa4_rows8_padding_f32", B=2, S=70, N=8, KN=2, H=128, block=32, layouts=4, local=2,
         vstride=2, kts=[70, 45], tunables={"FLASH_SG_ROWS": 8}, variant="separate_flash_sg"),
    case("flash_sg_chunk_h64_rows8_lanes16_f16", B=2, S=36, N=4, KN=1, H=64, block=16, layouts=2, local=2,
         vstride=3, pasts=[21, 9], cache=64, dtype="float16", tunables={"FLASH_SG_ROWS": 8, "FLASH_SG_LANES": 16},
         variant="separate_flash_sg"),
]


def with_flash_sg_twins(cases):
    """Every `*_flash` case whose head fits the subgroup form (a multiple of 32, at most 128) twice: as the
    subgroup form (id `..._fsg_<dtype>`, FLASH_WG read as FLASH_SG_WG; on a device without subgroups the old
    form) and, with FLASH_SUBGROUPS 0, as the staged form it replaces."""
    out = []
    for c in cases:
        v = c.get("variant", "")
        h = c["inputs"]["pastKeyT"]["shape"][3]
        if not v.endswith("_flash") or h % 32 != 0 or h > 128:
            out.append(sg_without(c) if v.endswith("_flash_sg") else c)
            continue
        t = json.loads(json.dumps(c))
        stem, dt = t["id"].rsplit("_", 1)
        t["id"] = "%s_fsg_%s" % (stem, dt)
        t["variant"] = v + "_sg"
        old = t.pop("tunables", {})
        if "FLASH_WG" in old:
            t["tunables"] = {"FLASH_SG_WG": old["FLASH_WG"]}
        out.append(sg_without(t))
        c["tunables"] = dict(c.get("tunables", {}), FLASH_SUBGROUPS=0)
        out.append(c)
    return out


def sg_without(c):
    """The variants a device picks instead of c's subgroup variant `<v>_sg`: without shader-f16 (float16) its
    packed form `<v>_sg_f16packed`, without subgroups `<v>`."""
    v = c["variant"]
    w = {}
    if c["inputs"]["queryT"]["dtype"] == "float16":
        w["shader-f16"] = v + "_f16packed"
    w["subgroups"] = v[:v.rindex("_sg")]
    c["variantWithout"] = w
    return c


WITH_REFUSALS = True
REFUSALS = [
    ("refuse_cache_too_small", dict(S=1, N=2, KN=1, H=8, pasts=[40], cache=32, total=41),
     "41 does not fit the cache: max_cache (past_key dim 2) is 32"),
    ("refuse_key_total_below_s", dict(B=2, S=3, N=2, KN=1, H=8, pasts=[4, -1], cache=32, total=7),
     "batch 1: 2 is below 3"),
    ("refuse_csr_column", dict(S=64, N=2, KN=1, H=8, layout_data=([[0, 1, 2, 3, 4]], [[0, 1, 7, 3]])),
     "column 7 is outside [0, max_blocks 4)"),
    ("refuse_csr_decreasing", dict(S=64, N=2, KN=1, H=8, layout_data=([[0, 2, 1, 3, 4]], [[0, 1, 2, 3]])),
     "layout 0 decreases at block row 1: 2 then 1"),
    ("refuse_rotary_width", dict(S=16, N=2, KN=1, H=32, rotary="neox", rot=8),
     "width 4 (rotary dim / 2) must be a multiple of 8"),
]


def refusal(cid, kw, text):
    c = case(cid, **kw)
    del c["expected"]
    c["expectError"] = text
    return c


def main():
    cases = with_flash_sg_twins(with_sg_twins(CASES + SG_CASES + FSG_CASES)) + TILED_CASES + [sg_without(c) for c in KP_CASES] + \
        [refusal(*r) for r in REFUSALS if WITH_REFUSALS]
    doc = {"schema": 1,
           "description": "SparseAttention against the double reference: block sizes, GQA, packed QKV, rotary, "
                          "float16, prompt/decode/chunked, per-batch past lengths, layouts.",
           "defaults": {"tolerance": {"float32": {"rtol": 1e-4, "atol": 2e-5}, "float16": {"rtol": 1e-2, "atol": 4e-3}}},
           "cases": cases}
    with open(os.path.join(WEBGPU, "test.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()


def bench_case(bid, S, past, dtype):
    """Phi-3-small: N 32, KN 8, H 128, block 64, local 16, vertical stride 8, 8 layouts; batch 1."""
    N, KN, H, block = 32, 8, 128, 64
    cache = past + S
    lay = {"num_layout": 8, "max_blocks": cache // block, "local_blocks": 16, "vert_stride": 8}

    def gen(shape, seed):
        return {"dtype": dtype, "shape": shape, "generator": {"kind": "uniform", "seed": seed}}
    c = {"id": bid,
         "description": "Phi-3-small %s: N 32, KN 8, H 128, block 64, local 16, vert stride 8, 8 layouts, %s" % (
             "prompt S=%d" % S if past == 0 else "decode S=%d after past %d" % (S, past), dtype),
         "inputs": {"queryT": gen([1, S, N * H], 1), "keyT": gen([1, S, KN * H], 2), "valueT": gen([1, S, KN * H], 3),
                    "pastKeyT": gen([1, KN, cache, H], 4), "pastValueT": gen([1, KN, cache, H], 5),
                    "blockRowIndicesT": {"dtype": "int32", "generator": dict(kind="phi3_layout_row", **lay)},
                    "blockColIndicesT": {"dtype": "int32", "generator": dict(kind="phi3_layout_col", **lay)},
                    "totalSequenceLengthT": {"dtype": "int32", "shape": [1], "generator": {"kind": "const", "value": cache}},
                    "keyTotalSequenceLengthsT": {"dtype": "int32", "shape": [1],
                                                 "generator": {"kind": "const", "value": cache}}},
         "attrs": {"num_heads": N, "kv_num_heads": KN, "sparse_block_size": block}}
    return c


def write_bench():
    # the tiled prompt form (PROMPT_FORM 1) as its own cases, so `wgk tune --case prompt` sweeps its chunk sizes
    # (a tuner keeps a case's variant: PROMPT_FORM swept from 0 would change it and is refused)
    tiled = [dict(bench_case("phi3_prompt_4096_%s_tiled" % sfx, 4096, 0, dt), tunables={"PROMPT_FORM": 1})
             for sfx, dt in (("f16", "float16"), ("f32", "float32"))]
    cases = [bench_case("phi3_prompt_4096_f16", 4096, 0, "float16"), bench_case("phi3_prompt_4096_f32", 4096, 0, "float32")] + \
        tiled + [bench_case("phi3_decode_past8191_f16", 1, 8191, "float16"),
             bench_case("phi3_decode_past8191_f32", 1, 8191, "float32")]
    doc = {"schema": 1, "description": "Phi-3-small SparseAttention shapes: a 4096-token prompt and one decode step "
           "after 8191 cached tokens. float16 runs everywhere: f16 storage with shader-f16, else two halves per u32 word.", "defaults": {"warmup": 3, "iterations": 20}, "cases": cases}
    with open(os.path.join(WEBGPU, "bench.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    write_bench()
