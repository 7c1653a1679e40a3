#!/usr/bin/python3
"""Writes build/webgpu/manifest.json of com.microsoft.SparseAttention (manifest spec 2.1).

The manifest repeats every binding list and variant in full; this script states each once and expands
them: Q/K/V separate or packed, rotary on or off, the attention templates, and the packed-float16 copies.
This script is the package's source: edit it, run it, then `wgk pack` on the package.
"""
import json
import os
import sys

# workgroup memory of the tiled prompt at d-chunk %s and V chunk %s (bytes; see tiledDC)
MEM = "(max(2 * %s * 17, 1024 + %s * headSize // 4) + 256) * 16 + (2 * tiledNQ * maskWords + 2 * tiledTW + 4) * 4 <= device.limits.maxComputeWorkgroupStorageSize"
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "build", "webgpu", "manifest.json")

INPUTS = [
    ("query", "T", 3, False, "Query `(batch_size, sequence_length, num_heads * head_size)`, or packed `[Q|K|V]` `(batch_size, sequence_length, (num_heads + 2 * kv_num_heads) * head_size)` when `key` and `value` are omitted."),
    ("key", "T", 3, True, "Key `(batch_size, sequence_length, kv_num_heads * head_size)`. Omitted for packed QKV."),
    ("value", "T", 3, True, "Value `(batch_size, sequence_length, kv_num_heads * head_size)`. Omitted for packed QKV."),
    ("past_key", "T", 4, False, "Key cache `(batch_size, kv_num_heads, max_cache_sequence_length, head_size)`, updated in place."),
    ("past_value", "T", 4, False, "Value cache with the same shape as `past_key`, updated in place."),
    ("block_row_indices", "M", 2, False, "CSR row pointers `(num_layout, max_blocks + 1)`. Each layout starts at zero, is monotonically non-decreasing, and ends no later than that layout's `block_col_indices` width."),
    ("block_col_indices", "M", 2, False, "CSR column indices `(num_layout, max_nnz_blocks)`, right-padded past each layout's non-zero count. Every active entry is in `[0, max_blocks)`."),
    ("total_sequence_length", "M", None, False, "Scalar or one-element vector holding the maximum total key length. Equal to `sequence_length` exactly in the prompt case, which is how the past length is decided. The value fits the cache, the sparse layout's `max_blocks * sparse_block_size` capacity, and the rotary-cache row count when rotary is enabled."),
    ("key_total_sequence_lengths", "M", 1, False, "Per-batch total key length excluding padding, shape `(batch_size)`. Each value is at most `total_sequence_length` and is at least 1 for a prompt or at least `sequence_length` otherwise."),
    ("cos_cache", "T", 2, True, "Rotary cosine cache `(max_rotary_sequence_length, rotary_dimension / 2)`, where the width is a multiple of 8 no larger than `head_size / 2`. Required with `sin_cache` when `do_rotary` is 1."),
    ("sin_cache", "T", 2, True, "Rotary sine cache with the same shape as `cos_cache`; required with it when `do_rotary` is 1."),
]
BIND_KEYS = {
    "query": "queryT", "key": "keyT", "value": "valueT", "past_key": "pastKeyT", "past_value": "pastValueT",
    "block_row_indices": "blockRowIndicesT", "block_col_indices": "blockColIndicesT",
    "total_sequence_length": "totalSequenceLengthT", "key_total_sequence_lengths": "keyTotalSequenceLengthsT",
    "cos_cache": "cosCacheT", "sin_cache": "sinCacheT", "output": "outputT",
}
OUTPUTS = [
    {"role": "output", "dtype": "T", "rank": 3,
     "shape": "[dim(shapes.queryT, 0), dim(shapes.queryT, 1), attrs.num_heads * dim(shapes.pastKeyT, 3)]",
     "description": "Attention output `(batch_size, sequence_length, num_heads * head_size)`."},
    {"role": "past_key", "dtype": "T", "rank": 4, "shape": "shapes.pastKeyT",
     "description": "The key cache tensor itself after the in-place append; ONNX names this output `present_key`."},
    {"role": "past_value", "dtype": "T", "rank": 4, "shape": "shapes.pastValueT",
     "description": "The value cache tensor itself after the in-place append; ONNX names this output `present_value`."},
]

ATTRS = {"do_rotary": 0, "rotary_interleaved": 0, "scale": 0.0}  # scale 0.0 (ORT's default): a float attribute
ATTR_DESC = {
    "do_rotary": "Set to 1 to apply rotary embedding to Q and to K before it enters the cache; every other value disables rotary embedding.",
    "kv_num_heads": "Number of key/value heads; must divide `num_heads`.",
    "num_heads": "Number of query heads.",
    "rotary_interleaved": "Set to 1 to rotate adjacent pairs instead of using the NeoX half-split; every other value selects the NeoX layout.",
    "scale": "Scale applied to query-key products; omitted or zero uses `1 / sqrt(head_size)`.",
    "sparse_block_size": "Tokens per sparse block; one of 16, 32, 64, 128.",
}

def flash_sk(rows):
    """Keys per S-step invocation for `rows` rows: the smallest of 1, 2, 4 whose invocations fit FLASH_WG."""
    return ("pick([[(%s) // 4 * flashKeyTile <= tunables.FLASH_WG, 1], "
            "[(%s) // 4 * (flashKeyTile // 2) <= tunables.FLASH_WG, 2]], 4)" % (rows, rows))


# Every name below is visible by bare name to later derives, to `when`, uniforms, dispatch and templates.
DERIVE = {
    "numHeads": "attrs.num_heads if attrs.num_heads is defined and attrs.num_heads is integer else 0",
    "kvHeads": "attrs.kv_num_heads if attrs.kv_num_heads is defined and attrs.kv_num_heads is integer else 0",
    "blockSize": "attrs.sparse_block_size if attrs.sparse_block_size is defined and attrs.sparse_block_size is integer else 0",
    "rotaryOn": "attrs.do_rotary == 1",
    "packedQkv": "not present.keyT and not present.valueT",
    "batch": "dim(shapes.queryT, 0) if ranks.queryT == 3 else 0",
    "seqLen": "dim(shapes.queryT, 1) if ranks.queryT == 3 else 0",
    "qkvHeads": "numHeads + 2 * kvHeads if packedQkv else numHeads",
    "headSize": "dim(shapes.queryT, 2) // qkvHeads if ranks.queryT == 3 and qkvHeads > 0 else 0",
    "groupSize": "numHeads // kvHeads if kvHeads > 0 else 0",
    "maxCache": "dim(shapes.pastKeyT, 2) if ranks.pastKeyT == 4 else 0",
    "numLayout": "dim(shapes.blockRowIndicesT, 0) if ranks.blockRowIndicesT == 2 else 0",
    "maxBlocks": "dim(shapes.blockRowIndicesT, 1) - 1 if ranks.blockRowIndicesT == 2 else 0",
    "maxNnz": "dim(shapes.blockColIndicesT, 1) if ranks.blockColIndicesT == 2 else 0",
    "halfRot": "dim(shapes.cosCacheT, 1) if rotaryOn and present.cosCacheT and ranks.cosCacheT == 2 else 0",
    "effScale": "attrs.scale if attrs.scale is number and attrs.scale != 0 else 1.0 / (headSize ** 0.5 if headSize > 0 else 1)",
    "qkvContract": "ranks.queryT == 3 and numHeads > 0 and kvHeads > 0 and numHeads % kvHeads == 0 and headSize > 0 and headSize % 8 == 0 and dim(shapes.queryT, 2) == qkvHeads * headSize and present.keyT == present.valueT and (packedQkv or (sameShape(shapes.keyT, [batch, seqLen, kvHeads * headSize]) and sameShape(shapes.valueT, shapes.keyT)))",
    "cacheContract": "ranks.pastKeyT == 4 and sameShape(shapes.pastKeyT, [batch, kvHeads, maxCache, headSize]) and sameShape(shapes.pastValueT, shapes.pastKeyT) and maxCache >= seqLen",
    "layoutContract": "numLayout >= 1 and maxBlocks >= 1 and ranks.blockColIndicesT == 2 and dim(shapes.blockColIndicesT, 0) == numLayout and numHeads % numLayout == 0 and blockSize in [16, 32, 64, 128] and ranks.keyTotalSequenceLengthsT == 1 and dim(shapes.keyTotalSequenceLengthsT, 0) == batch and numel(shapes.totalSequenceLengthT) == 1 and ranks.totalSequenceLengthT <= 1",
    "rotaryContract": "(not rotaryOn and not present.cosCacheT and not present.sinCacheT) or (rotaryOn and present.cosCacheT and present.sinCacheT and sameShape(shapes.cosCacheT, shapes.sinCacheT) and halfRot > 0 and halfRot % 8 == 0 and 2 * halfRot <= headSize)",
    "sparseContract": "f16Ok(dtypes.T) and qkvContract and cacheContract and layoutContract and rotaryContract",
    # attention tiling: TQ queries of one block row times HG heads of one GQA group per workgroup
    "queryTile": "tunables.QUERY_TILE",
    "headsPerGroup": "pick([[groupSize % 8 == 0, 8], [groupSize % 4 == 0, 4], [groupSize % 2 == 0, 2]], 1)",
    "maskWords": "ceilDiv(maxBlocks, 32)",
    "maskBytes": "(headsPerGroup + 1) * maskWords * 4 + 64",
    "tileBudget": "min(device.limits.maxComputeWorkgroupStorageSize, tunables.TILE_BYTES) - maskBytes",
    "queryLanes": "pick([[headSize % 16 == 0 and queryTile * headsPerGroup * 4 <= device.limits.maxComputeInvocationsPerWorkgroup, 4], [queryTile * headsPerGroup * 2 <= device.limits.maxComputeInvocationsPerWorkgroup, 2]], 1)",
    "keyBytes": "headSize * 8 + (queryTile * headsPerGroup * queryLanes * 4 if queryLanes > 1 else 0)",
    "keyTile": "pick([[keyBytes * 32 <= tileBudget, 32], [keyBytes * 16 <= tileBudget, 16], [keyBytes * 8 <= tileBudget, 8], [keyBytes * 4 <= tileBudget, 4], [keyBytes * 2 <= tileBudget, 2]], 1)",
    "queryTiles": "(seqLen + 2 * queryTile - 2) // queryTile",
    "tilingOk": "blockSize % queryTile == 0 and keyBytes * keyTile <= tileBudget and queryTile * headsPerGroup <= device.limits.maxComputeInvocationsPerWorkgroup and queryTiles <= device.limits.maxComputeWorkgroupsPerDimension and numHeads // headsPerGroup <= device.limits.maxComputeWorkgroupsPerDimension and batch <= device.limits.maxComputeWorkgroupsPerDimension",
    # the flash attention (`*_flash`): M = flashTQ * flashHG rows (head, query) in groups of 4 of one head,
    # key tiles of up to FLASH_KEY_TILE keys taking at most half the workgroup memory; the largest query tile
    # <= FLASH_ROWS / flashHG whose workgroup memory fits. Register tiles: an S-step invocation scores 4 rows
    # x flashSK keys, a PV-step invocation accumulates 4 rows x flashPC vec4 columns, the smallest tiles
    # (1..4) whose invocation counts fit FLASH_WG (so `wgk tune` picks the shapes by sweeping FLASH_WG)
    "flashHG": "pick([[groupSize % 8 == 0 and tunables.FLASH_ROWS >= 32, 8], [groupSize % 4 == 0 and tunables.FLASH_ROWS >= 16, 4], [groupSize % 2 == 0 and tunables.FLASH_ROWS >= 8, 2]], 1)",
    "flashKeyTile": "pick([%s], 0)" % ", ".join(
        "[%d <= tunables.FLASH_KEY_TILE and %d * (headSize + 4) * 8 <= device.limits.maxComputeWorkgroupStorageSize, %d]"
        % (t, t, t) for t in (64, 32, 16, 8, 4)),
    "flashTQ": "pick([%s], 0)" % ", ".join(
        "[%d * flashHG <= tunables.FLASH_ROWS and blockSize %% %d == 0 and (%d * flashHG * (headSize + 2 + flashKeyTile + flashKeyTile // %s) + flashKeyTile * (headSize + 4) + (2 * flashHG + 1) * maskWords + 4) * 4 <= device.limits.maxComputeWorkgroupStorageSize, %d]"
        % (t, t, t, flash_sk("%d * flashHG" % t), t) for t in (64, 32, 16, 8, 4)),
    "flashSK": flash_sk("flashTQ * flashHG"),
    "flashPC": "pick([[flashTQ * flashHG // 4 * (headSize // 4) <= tunables.FLASH_WG, 1], [headSize % 8 == 0 and flashTQ * flashHG // 4 * (headSize // 8) <= tunables.FLASH_WG, 2], [headSize % 16 == 0, 4], [headSize % 8 == 0, 2]], 1)",
    "flashWG": "(flashTQ * flashHG // 4) * max(flashKeyTile // flashSK, headSize // (4 * flashPC))",
    "flashTiles": "(seqLen + 2 * flashTQ - 2) // flashTQ if flashTQ > 0 else 0",
    "flashOk": "flashTQ >= 4 and flashKeyTile >= 1 and flashWG <= device.limits.maxComputeInvocationsPerWorkgroup and flashTiles <= device.limits.maxComputeWorkgroupsPerDimension and numHeads // flashHG <= device.limits.maxComputeWorkgroupsPerDimension and batch <= device.limits.maxComputeWorkgroupsPerDimension",
    # the subgroup-matrix attention: f32 8x8x8 matrices, K tiles of 8 keys, Q rows staged in workgroup memory
    "sgmatBytes": "(headsPerGroup * queryTile * headSize + 2 * 8 * headSize + headsPerGroup * queryTile * 8) * 4 + maskBytes",
    "sgmatOk": "dtypes.T == 'f32' and queryTile % 8 == 0 and sgmatBytes <= device.limits.maxComputeWorkgroupStorageSize",
    "hasSubgroupMatrix": "device.features.has('subgroups') and device.features.has('chromium-experimental-subgroup-matrix')",
    # decode (flash-decoding): the union of a GQA chunk's active key blocks split across workgroups, merged after
    "decodeWG": "max(tunables.DECODE_WG, headSize // 4)",
    "decodeFixedBytes": "(headsPerGroup + decodeWG // max(1, headSize // 4) + (2 * headsPerGroup + 1) * maskWords + 2) * 4",
    "decodeKeyTile": "pick([%s], 0)" % ", ".join(
        "[%d <= tunables.DECODE_KEY_TILE and (headsPerGroup * (headSize // 4) + max(%d * (headSize // 4 + 1), decodeWG) + %d * (headSize // 4 + 1)) * 16 + %d * headsPerGroup * 4 + decodeFixedBytes <= device.limits.maxComputeWorkgroupStorageSize, %d]"
        % (t, t, t, t, t) for t in (64, 32, 16, 8, 4, 2, 1)),
    "decodeBlocksBound": "max(1, min(maxBlocks, ceilDiv(maxCache, blockSize) if blockSize > 0 else 1, headsPerGroup * maxNnz))",  # union ranks < the cache's blocks
    "decodeRows": "(numHeads // headsPerGroup) * batch * seqLen if headsPerGroup > 0 else 0",
    "splitBlocks": "tunables.SPLIT_BLOCKS if tunables.SPLIT_BLOCKS > 0 else max(1, ceilDiv(decodeBlocksBound * decodeRows, tunables.DECODE_WORKGROUPS))",
    "decodeSplits": "ceilDiv(decodeBlocksBound, splitBlocks)",
    "hasSubgroups8": "device.features.has('subgroups') and device.adapterInfo.subgroupMinSize is defined and device.adapterInfo.subgroupMinSize >= 8",
    # the subgroup split (`separate_decode_sg`): lane groups of decodeSgLW invocations of one subgroup (8, or 16 /
    # 32 with DECODE_SG_LANES where the device's subgroups hold that many) each take a key at a time
    # (DECODE_SG_KEYS in flight, the next step's too with DECODE_SG_PREFETCH), no K/V staging; at the end the
    # DECODE_WG / decodeSgLW lane groups' states meet in workgroup memory, the accumulators in rounds of
    # decodeSgRows lane groups within 16 KiB (or the device's less); with DECODE_MERGE_PAR the folded merge keeps
    # each split's maximum and sum of each head there too
    "decodeSgLW": "32 if hasSubgroups8 and tunables.DECODE_SG_LANES >= 32 and device.adapterInfo.subgroupMinSize >= 32 and headSize >= 128 and decodeWG % 32 == 0 else 16 if hasSubgroups8 and tunables.DECODE_SG_LANES >= 16 and device.adapterInfo.subgroupMinSize >= 16 and headSize >= 64 and decodeWG % 16 == 0 else 8",
    "decodeMergeWords": "(2 * decodeSplits + 1) * headsPerGroup if tunables.DECODE_MERGE_PAR != 0 else 0",
    "decodeSgFixedBytes": "(2 * (decodeWG // decodeSgLW) * headsPerGroup + splitBlocks + (2 * headsPerGroup + 1) * maskWords + 2 + decodeMergeWords) * 4",
    "decodeSgRows": "min(decodeWG // decodeSgLW, (min(device.limits.maxComputeWorkgroupStorageSize, 16384) - decodeSgFixedBytes) // (headsPerGroup * headSize * 4))",
    "decodeSgKeys": "max(1, min(tunables.DECODE_SG_KEYS, 8))",
    "decodeSgOk": "tunables.DECODE_SUBGROUPS != 0 and hasSubgroups8 and decodeWG % 8 == 0 and decodeSgRows >= 1",
    # the merge folded into the subgroup split (`separate_decode_sg_fold`): kv_append runs first, and the last split
    # of each head chunk to finish (an atomic counter per chunk) merges the chunk's heads into the output
    "decodeFoldOk": "tunables.DECODE_MERGE_FOLD == 1 and decodeSgOk",
    # the key-per-invocation split (DECODE_FORM 1, in the folded variant: sparse-decode-split-kp): kv_append's
    # extra workgroups write each split's block list into `counter` once per call; a split takes WG keys a tile,
    # one per invocation, then decodeKpNP key partitions x columns for PV, met in rounds of decodeKpRows (256
    # bytes kept for the alignment of the workgroup arrays)
    "decodeKpNP": "max(1, decodeWG // max(1, headSize // 4))",
    "decodeKpFixedBytes": "(headsPerGroup * headSize + 6 + decodeWG * (headsPerGroup + 1) + (decodeWG // 8 + 1) * headsPerGroup + decodeKpNP * headsPerGroup + (2 * decodeSplits + 1) * headsPerGroup) * 4",
    "decodeKpRows": "min(decodeKpNP, (min(device.limits.maxComputeWorkgroupStorageSize, 16384) - 256 - decodeKpFixedBytes) // (headsPerGroup * headSize * 4))",
    "decodeKp": "tunables.DECODE_FORM == 1 and decodeKpRows >= 1 and ((2 * headsPerGroup + 1) * maskWords + 1) * 4 <= device.limits.maxComputeWorkgroupStorageSize and maxBlocks < 65536",
    "fusedAppendOn": "tunables.DECODE_FUSED_APPEND == 1",  # 0: decode without rotary keeps the kv_append pass
    "decodeOk": "seqLen >= 1 and seqLen <= tunables.DECODE_MAX_S and maxCache >= tunables.DECODE_MIN_KEYS and decodeSplits <= device.limits.maxComputeWorkgroupsPerDimension and numHeads <= device.limits.maxComputeWorkgroupsPerDimension and numHeads // headsPerGroup <= device.limits.maxComputeWorkgroupsPerDimension and batch * seqLen <= device.limits.maxComputeWorkgroupsPerDimension and decodeWG <= device.limits.maxComputeInvocationsPerWorkgroup and decodeKeyTile >= 1",
    # the flash prompt with the queries in registers (`*_flash_sg`): lane groups of flashSgLW invocations of one
    # subgroup (8, or 16 with FLASH_SG_LANES >= 16 where subgroups hold 16 and H is a multiple of 64), each
    # flashSgR rows of one head (2, 4 or 8: FLASH_SG_ROWS; H / (4 LW) vec4 columns a lane); TQ positions x HG heads
    # of one GQA group make a workgroup of LW * TQ * HG / R invocations, at most FLASH_SG_WG and the device's
    # limits. FLASH_ROWS 0 turns it off with the staged flash.
    "flashSgLW": "16 if hasSubgroups8 and tunables.FLASH_SG_LANES >= 16 and device.adapterInfo.subgroupMinSize >= 16 and headSize % 64 == 0 else 8",
    "flashSgR": "2 if tunables.FLASH_SG_ROWS <= 2 else 4 if tunables.FLASH_SG_ROWS <= 4 else 8",
    "flashSgHG": "pick([[groupSize % 4 == 0, 4], [groupSize % 2 == 0, 2]], 1)",
    "flashSgTQ": "pick([%s], 0)" % ", ".join(
        "[blockSize %% %d == 0 and %d >= flashSgR and flashSgLW * %d * flashSgHG // flashSgR <= min(tunables.FLASH_SG_WG, min(device.limits.maxComputeInvocationsPerWorkgroup, device.limits.maxComputeWorkgroupSizeX)), %d]"
        % (t, t, t, t) for t in (64, 32, 16, 8, 4)),
    "flashSgTiles": "(seqLen + 2 * flashSgTQ - 2) // flashSgTQ if flashSgTQ > 0 else 0",
    "flashSgOk": "tunables.FLASH_SUBGROUPS != 0 and tunables.FLASH_ROWS != 0 and hasSubgroups8 and headSize % 32 == 0 and headSize <= 128 and flashSgTQ >= 4 and (2 * flashSgHG * maskWords + 4) * 4 <= device.limits.maxComputeWorkgroupStorageSize and flashSgTiles <= device.limits.maxComputeWorkgroupsPerDimension and numHeads // flashSgHG <= device.limits.maxComputeWorkgroupsPerDimension and batch <= device.limits.maxComputeWorkgroupsPerDimension",
    # the tiled prompt (`*_tiled`, PROMPT_FORM 1): 64 positions of one head a workgroup of 256 invocations (128 with
    # PROMPT_TILE_ROWS 8), S = Q K^T and O += P V as register-tiled products (tiledRI rows x 4 keys, tiledRI rows
    # x H / 64 vec4 columns an invocation)
    # through workgroup memory: Q^T and K^T staged in chunks of tiledDC dimensions (the largest of 64, 32, 16
    # up to PROMPT_TILE_DC that fits), P (16 KiB) and V in chunks of tiledVC keys (the largest up to
    # PROMPT_TILE_VC that fits) over them, the row maxima's partials (4 KiB) and the layout bits
    "tiledNQ": "64 // blockSize if blockSize > 0 and blockSize < 64 else 1",
    "tiledTW": "max(1, ceilDiv(ceilDiv(maxBlocks * blockSize, 64), 32))",
    "tiledDC": "pick([%s], 0)" % ", ".join(
        "[%d <= tunables.PROMPT_TILE_DC and headSize %% %d == 0 and %s, %d]" % (d, d, MEM % (d, 8), d)
        for d in (64, 32, 16)),
    "tiledVC": "pick([%s], 0)" % ", ".join(
        "[%d <= tunables.PROMPT_TILE_VC and %s, %d]" % (v, MEM % ("tiledDC", v), v) for v in (64, 32, 16, 8)),
    "tiledRI": "8 if tunables.PROMPT_TILE_ROWS >= 8 else 4",  # rows an invocation: 256 invocations, or 128
    "tiledTiles": "(seqLen + 126) // 64",
    "tiledOk": "tunables.PROMPT_FORM == 1 and headSize % 64 == 0 and headSize <= 256 and tiledDC > 0 and tiledVC > 0 and device.limits.maxComputeInvocationsPerWorkgroup >= 1024 // tiledRI and device.limits.maxComputeWorkgroupSizeX >= 1024 // tiledRI and tiledTiles <= device.limits.maxComputeWorkgroupsPerDimension and numHeads <= device.limits.maxComputeWorkgroupsPerDimension and batch <= device.limits.maxComputeWorkgroupsPerDimension",}

FIELDS = [
    ("batch", "u32", "batch"), ("seqLen", "u32", "seqLen"), ("numHeads", "u32", "numHeads"),
    ("kvHeads", "u32", "kvHeads"), ("headSize", "u32", "headSize"), ("groupSize", "u32", "groupSize"),
    ("qRowStride", "u32", "qkvHeads * headSize"),
    ("kvRowStride", "u32", "qkvHeads * headSize if packedQkv else kvHeads * headSize"),
    ("kOffset", "u32", "numHeads * headSize if packedQkv else 0"),
    ("vOffset", "u32", "(numHeads + kvHeads) * headSize if packedQkv else 0"),
    ("maxCache", "u32", "maxCache"), ("numLayout", "u32", "numLayout"), ("maxBlocks", "u32", "maxBlocks"),
    ("maxNnz", "u32", "maxNnz"), ("blockSize", "u32", "blockSize"), ("halfRot", "u32", "halfRot"),
    ("qPairs", "u32", "batch * seqLen * numHeads * headSize // 2"),
    ("kvPairs", "u32", "batch * seqLen * kvHeads * headSize // 2"),
    ("scale", "f32", "effScale"),
]


def storage(name, arg, writable=False, etype="$T"):
    return {"name": name, "arg": arg, "buffer": "storage" if writable else "read-only-storage", "elementType": etype}


def params():
    return {"name": "params", "buffer": "uniform", "struct": [{"name": n, "type": t, "value": v} for n, t, v in FIELDS]}


LENGTHS = [storage("total_len", "totalSequenceLengthT", etype="$M"),
           storage("key_total", "keyTotalSequenceLengthsT", etype="$M")]
ROTARY = [storage("cos_cache", "cosCacheT"), storage("sin_cache", "sinCacheT")]


def binding_sets():
    """The binding lists passes share, by name; each pass carries its own copy inline."""
    sets = {}
    for packed in (False, True):
        for rot in (False, True):
            src = [storage("query", "queryT")] if packed else [storage("key", "keyT"), storage("value", "valueT")]
            sets["append_%s%s" % ("packed" if packed else "separate", "_rotary" if rot else "")] = (
                src + (ROTARY if rot else []) + LENGTHS +
                [storage("past_key", "pastKeyT", True), storage("past_value", "pastValueT", True), params()])
    # the folded decode's append, whose extra workgroups write the split lists with DECODE_FORM 1 (9 storage buffers)
    sets["append_separate_union"] = sets["append_separate"][:-1] + [
        storage("block_row", "blockRowIndicesT", etype="$M"), storage("block_col", "blockColIndicesT", etype="$M"),
        {"name": "counter", "scratch": "counter", "buffer": "storage", "elementType": "u32"}, params()]
    sets["q_rotary"] = [storage("query", "queryT")] + ROTARY + LENGTHS + [storage("output", "outputT", True), params()]
    # in/out ports are bound read-write wherever they are bound (the loader's rule); attend only reads them
    caches = [storage("past_key", "pastKeyT", True), storage("past_value", "pastValueT", True),
              storage("block_row", "blockRowIndicesT", etype="$M"),
              storage("block_col", "blockColIndicesT", etype="$M")] + LENGTHS
    sets["attend_query"] = [storage("query", "queryT")] + caches + [storage("output", "outputT", True), params()]
    sets["attend_staged"] = caches + [storage("output", "outputT", True), params()]
    partial = {"name": "partial", "scratch": "partial", "buffer": "storage", "elementType": "f32"}
    sets["decode_split_query"] = [storage("query", "queryT")] + caches + [partial, params()]
    # the split with kv_append folded in (no rotary), separate K and V: it reads the new rows from key/value
    sets["decode_split_separate"] = [storage("query", "queryT"), storage("key", "keyT"),
                                     storage("value", "valueT")] + caches + [partial, params()]
    # the subgroup split with the merge folded in (kv_append before it): 10 storage buffers
    sets["decode_split_fold"] = [storage("query", "queryT")] + caches + [
        partial, {"name": "counter", "scratch": "counter", "buffer": "storage", "elementType": "u32"},
        storage("output", "outputT", True), params()]
    sets["decode_split_staged"] = [storage("output", "outputT", True)] + caches + [partial, params()]
    sets["decode_merge"] = [dict(partial, buffer="read-only-storage"), storage("output", "outputT", True), params()]
    return sets


SETS = binding_sets()


def shader_pass(pid, name, shader, bindings, dispatch, derive=None):
    """One pass: its template, the template's own constants (derive), its binding set inline, its grid."""
    p = {"id": pid, "name": name, "shader": shader}
    if derive:
        p["derive"] = derive
    p["bindings"] = json.loads(json.dumps(SETS[bindings]))
    p["dispatch"] = dispatch
    return p


def elementwise(pairs):
    return {"threads": pairs, "workgroupSize": "tunables.WORKGROUP_SIZE"}


def front_passes(packed, rot):
    """q_rotary (rotary variants) and kv_append, shared by every variant."""
    layout = "packed" if packed else "separate"
    passes = []
    if rot:
        passes.append(shader_pass("q_rotary", "sparse_q_rotary", "sparse-q-rotary.wgsl.jinja", "q_rotary",
                                  elementwise("batch * seqLen * numHeads * headSize // 2")))
    passes.append(shader_pass("kv_append", "sparse_kv_append", "sparse-kv-append.wgsl.jinja",
                              "append_%s%s" % (layout, "_rotary" if rot else ""),
                              elementwise("batch * seqLen * kvHeads * headSize // 2"),
                              {"packed": "true" if packed else "false", "rotary": "true" if rot else "false"}))
    return passes


def decode_sg_variant():
    """The subgroup form of the fused separate decode (no rotary): the same grid, `partial` and merge as
    `separate_decode`, whose split it replaces where the device has subgroups of >= 8 invocations."""
    v = decode_variant(False, False)
    v["id"] = "separate_decode_sg"
    v["when"] = v["when"] + ["decodeSgOk"]
    split = v["passes"][0]
    split["shader"] = "sparse-decode-split-sg.wgsl.jinja"
    del split["derive"]
    v["passes"][0] = shader_pass(split["id"], split["name"], split["shader"], "decode_split_separate", split["dispatch"],
                                 {"fold": "false"})
    v["derive"] = dict(v["derive"], U="decodeSgKeys", R="decodeSgRows", VL="tunables.VEC_LOADS != 0", LW="decodeSgLW",
                       PF="tunables.DECODE_SG_PREFETCH != 0", MP="tunables.DECODE_MERGE_PAR != 0",
                       BL="tunables.CLAMP_LOADS != 0")
    return v


def decode_sg_fold_variant():
    """The subgroup split with the merge folded in: kv_append, then one split pass whose last workgroup to finish
    in each head chunk (a counter per chunk in the `counter` intermediate, zeroed every call) merges the chunk's
    partial records into the output. Binding the output and the counter leaves no room for key and value (10
    storage buffers), so the append is its own pass; where DECODE_MERGE_FOLD is 0, `separate_decode_sg`."""
    v = decode_sg_variant()
    v["id"] = "separate_decode_sg_fold"
    v["when"] = [w for w in v["when"] if w != "fusedAppendOn"] + ["decodeFoldOk"]
    split = v["passes"][0]
    append = shader_pass("kv_append", "sparse_kv_append", "sparse-kv-append.wgsl.jinja", "append_separate_union",
                         {"threads": "(ceilDiv(batch * seqLen * kvHeads * headSize // 2, tunables.WORKGROUP_SIZE) + "
                                     "(decodeRows if decodeKp else 0)) * tunables.WORKGROUP_SIZE",
                          "workgroupSize": "tunables.WORKGROUP_SIZE"},
                         {"packed": "false", "rotary": "false", "union": "decodeKp"})
    v["passes"] = [append, shader_pass(split["id"], split["name"], split["shader"], "decode_split_fold",
                                       split["dispatch"], {"fold": "true"})]
    v["derive"] = dict(v["derive"], KP="decodeKp", KR="decodeKpRows", VR="max(1, tunables.DECODE_KP_VROWS)")
    # a ticket per (row, head chunk); with DECODE_FORM 1 then each split's slot: count, used, SB blocks
    v["intermediates"] = v["intermediates"] + [
        {"id": "counter", "dtype": "uint32",
         "shape": "[decodeRows * (1 + (decodeSplits * (splitBlocks + 2) if decodeKp else 0))]"}]
    return v


def decode_variant(packed, rot, fused=None):
    """Flash-decoding for short query chunks over a long cache: split pass into `partial`, then merge. Without
    rotary the split also appends the new K/V rows (two passes); with it q_rotary and kv_append run first.
    fused=False: the separate form with kv_append before the split (`*_decode_append`), for devices that allow
    fewer than the 10 storage buffers of the fused separate split (wgk skips a variant over the limit)."""
    fused = not rot if fused is None else fused
    vid = "%s%s_decode%s" % ("packed" if packed else "separate", "_rotary" if rot else "",
                             "_append" if not rot and not fused else "")
    when = ["sparseContract", "decodeOk", "packedQkv" if packed else "not packedQkv",
            "rotaryOn" if rot else "not rotaryOn"] + (["fusedAppendOn"] if fused else [])
    passes = ([] if fused else front_passes(packed, rot)) + [
        shader_pass("decode_split", "sparse_decode_split", "sparse-decode-split.wgsl.jinja",
                    "decode_split_staged" if rot else "decode_split_separate" if fused and not packed else
                    "decode_split_query",
                    {"x": "decodeSplits", "y": "numHeads // headsPerGroup", "z": "batch * seqLen"},
                    {"stagedQuery": "true" if rot else "false", "fusedAppend": "true" if fused else "false",
                     "packed": "true" if packed else "false"}),
        shader_pass("decode_merge", "sparse_decode_merge", "sparse-decode-merge.wgsl.jinja", "decode_merge",
                    {"x": "numHeads", "y": "batch * seqLen"})]  # a workgroup per row
    return {"id": vid, "when": when,
            "derive": {"scalar": "dtypes.T", "interleaved": "attrs.rotary_interleaved == 1", "H": "headSize",
                       "HG": "headsPerGroup", "TK": "decodeKeyTile", "WG": "decodeWG", "MW": "maskWords",
                       "NS": "decodeSplits", "SB": "splitBlocks"},
            "intermediates": [{"id": "partial", "dtype": "float32",
                               "shape": "[batch * seqLen, numHeads, decodeSplits + 1, headSize + 2]"}],  # + the count of splits that ran
            "passes": passes}


def flash_variant(packed, rot):
    """Tiled flash attention for prompts (first choice where its workgroup memory fits)."""
    vid = "%s%s_flash" % ("packed" if packed else "separate", "_rotary" if rot else "")
    when = ["sparseContract", "flashOk", "packedQkv" if packed else "not packedQkv",
            "rotaryOn" if rot else "not rotaryOn"]
    passes = front_passes(packed, rot)
    passes.append(shader_pass("attend", "sparse_attention_flash", "sparse-attention-flash.wgsl.jinja",
                              "attend_staged" if rot else "attend_query",
                              {"x": "flashTiles", "y": "numHeads // flashHG", "z": "batch"},
                              {"stagedQuery": "true" if rot else "false"}))
    return {"id": vid, "when": when,
            "derive": {"scalar": "dtypes.T", "interleaved": "attrs.rotary_interleaved == 1", "H": "headSize",
                       "TQ": "flashTQ", "HG": "flashHG", "TK": "flashKeyTile", "SK": "flashSK",
                       "PC": "flashPC", "MW": "maskWords", "WG": "flashWG"},
            "passes": passes}


def flash_form(packed, rot, v_id, ok, name, shader, dispatch):
    """Another prompt form on the flash variant's passes: its id, its own condition in place of flashOk, and its
    attend pass (name, shader, grid); the caller sets its derive."""
    v = flash_variant(packed, rot)
    v["id"] = v_id(v["id"])
    v["when"] = [ok if w == "flashOk" else w for w in v["when"]]
    attend = v["passes"][-1]
    attend["name"], attend["shader"], attend["dispatch"] = name, shader, dispatch
    return v


def flash_sg_variant(packed, rot):
    """Flash attention with the queries in registers (devices with subgroups of >= 8): before `*_flash`."""
    v = flash_form(packed, rot, v_id=lambda i: i + "_sg", ok="flashSgOk", name="sparse_attention_flash_sg",
                   shader="sparse-attention-flash-sg.wgsl.jinja",
                   dispatch={"x": "flashSgTiles", "y": "numHeads // flashSgHG", "z": "batch"})
    v["derive"] = {"scalar": "dtypes.T", "interleaved": "attrs.rotary_interleaved == 1", "H": "headSize",
                   "TQ": "flashSgTQ", "HG": "flashSgHG", "MW": "maskWords", "R": "flashSgR",
                   "LW": "flashSgLW", "VL": "tunables.VEC_LOADS != 0", "BL": "tunables.CLAMP_LOADS != 0",
                   "WG": "flashSgLW * flashSgTQ * flashSgHG // flashSgR"}
    return v


def tiled_variant(packed, rot):
    """The tiled prompt (PROMPT_FORM 1): where it is asked for and fits, before every other prompt form."""
    v = flash_form(packed, rot, v_id=lambda i: i.replace("_flash", "_tiled"), ok="tiledOk",
                   name="sparse_attention_tiled", shader="sparse-attention-tiled.wgsl.jinja",
                   dispatch={"x": "tiledTiles", "y": "numHeads", "z": "batch"})
    v["derive"] = {"scalar": "dtypes.T", "interleaved": "attrs.rotary_interleaved == 1", "H": "headSize",
                   "BS": "blockSize", "MW": "maskWords", "NQ": "tiledNQ", "TW": "tiledTW", "DC": "tiledDC",
                   "VC": "tiledVC", "RI": "tiledRI", "PF": "tunables.PROMPT_TILE_PREFETCH != 0"}
    return v


def variant(packed, rot, sgmat):
    layout = "packed" if packed else "separate"
    vid = "%s%s%s" % (layout, "_rotary" if rot else "", "_sgmat" if sgmat else "")
    when = ["sparseContract", "tilingOk", "packedQkv" if packed else "not packedQkv",
            "rotaryOn" if rot else "not rotaryOn"]
    if sgmat:
        when += ["hasSubgroupMatrix", "sgmatOk"]
    passes = front_passes(packed, rot)
    passes.append(shader_pass("attend", "sparse_attention" + ("_sgmat" if sgmat else ""),
                              "sparse-attention-sgmat.wgsl.jinja" if sgmat else "sparse-attention.wgsl.jinja",
                              "attend_staged" if rot else "attend_query",
                              {"x": "queryTiles", "y": "numHeads // headsPerGroup", "z": "batch"},
                              {"stagedQuery": "true" if rot else "false"}))
    return {"id": vid, "when": when,
            "derive": {"scalar": "dtypes.T", "interleaved": "attrs.rotary_interleaved == 1",
                       "H": "headSize", "TQ": "queryTile", "HG": "headsPerGroup", "TK": "8" if sgmat else "keyTile",
                       "MW": "maskWords", "L": "1" if sgmat else "queryLanes"},
            "passes": passes}


# float16 without shader-f16: copies of the f32/f16 variants whose float16 ports are `array<u32>` holding two
# halves per word (the host's own float16 bytes, padded to 4), read with unpack2x16float, written with
# pack2x16float, arithmetic in f32: the *-f16packed templates. Chosen only where f16Ok(T) is false.
F16_PACKED_DERIVE = {
    "f16Packed": "dtypes.T == 'f16' and not f16Ok(dtypes.T)",
    "packedContract": "qkvContract and cacheContract and layoutContract and rotaryContract",
}


def f16_packed(v):
    """The packed-float16 copy of variant v: f16Packed instead of f16Ok, the -f16packed templates, and every
    T-typed binding as u32 words."""
    when = ["packedContract" if w == "sparseContract" else w for w in v["when"]] + ["f16Packed"]
    passes = []
    for p in v["passes"]:
        q = dict(p, name=p["name"] + "_f16packed", shader=p["shader"].replace(".wgsl.jinja", "-f16packed.wgsl.jinja"),
                 bindings=[dict(b, elementType="u32") if b.get("elementType") == "$T" else b for b in p["bindings"]])
        passes.append(q)
    return dict(v, id=v["id"] + "_f16packed", when=when, passes=passes)


def main():
    inputs = {}
    for role, dt, rank, opt, desc in INPUTS:
        p = {"onnx": role, "description": desc, "dtype": dt}
        if rank is not None:
            p["rank"] = rank
        if opt:
            p["optional"] = True
        inputs[BIND_KEYS[role]] = p
    outputs = {}
    for o in OUTPUTS:
        outputs[BIND_KEYS[o["role"]]] = {"onnx": o["role"], "description": o["description"], "dtype": o["dtype"],
                                         "rank": o["rank"], "shape": o["shape"]}
    attributes = {name: {"default": value} for name, value in ATTRS.items()}
    for name, desc in ATTR_DESC.items():
        attributes.setdefault(name, {})["description"] = desc
    variants = [decode_sg_fold_variant(), decode_sg_variant()] + [decode_variant(p, r) for p in (False, True) for r in (False, True)] + \
               [decode_variant(False, False, fused=False)] + \
               [tiled_variant(p, r) for p in (False, True) for r in (False, True)] + \
               [variant(p, r, True) for p in (False, True) for r in (False, True)] + \
               [flash_sg_variant(p, r) for p in (False, True) for r in (False, True)] + \
               [flash_variant(p, r) for p in (False, True) for r in (False, True)] + \
               [variant(p, r, False) for p in (False, True) for r in (False, True)]
    variants += [f16_packed(decode_sg_fold_variant()), f16_packed(decode_sg_variant())] + \
                [f16_packed(decode_variant(p, r)) for p in (False, True) for r in (False, True)] + \
                [f16_packed(decode_variant(False, False, fused=False))] + \
                [f16_packed(tiled_variant(p, r)) for p in (False, True) for r in (False, True)] + \
                [f16_packed(flash_sg_variant(p, r)) for p in (False, True) for r in (False, True)] + \
                [f16_packed(flash_variant(p, r)) for p in (False, True) for r in (False, True)] + \
                [f16_packed(variant(p, r, False)) for p in (False, True) for r in (False, True)]
    m = {
        "domain": "com.microsoft", "name": "SparseAttention",
        "description": "Block-sparse causal attention used by Phi-3-small (ONNX Runtime contrib operator). `block_row_indices` and `block_col_indices` encode one or more CSR block masks, and layouts cycle over query heads. Grouped-query heads, separate or packed `[Q|K|V]`, explicit scaling, partial or full rotary embedding in NeoX or interleaved layout, and float16 are supported. The past/present key and value tensors share allocations and are updated in place. Head sizes must be non-zero multiples of 8; bfloat16 is not implemented.",
        "sinceVersion": 1,
        "inputs": inputs, "outputs": outputs, "attributes": attributes,
        "attributeConstraints": {"num_heads": {"required": True}, "kv_num_heads": {"required": True},
                                 "sparse_block_size": {"required": True, "values": [16, 32, 64, 128]},
                                 "do_rotary": {"values": [0, 1]}, "rotary_interleaved": {"values": [0, 1]}},
        "typeConstraints": {"T": ["float32", "float16"], "M": ["int32"]},
        "tunables": {k: {"default": v} for k, v in TUNABLES.items()},
        "derive": dict(DERIVE, **F16_PACKED_DERIVE),
        "variants": variants,
    }
    with open(OUT, "w") as f:
        json.dump(m, f, indent=2)


TUNABLES = {"WORKGROUP_SIZE": 256, "QUERY_TILE": 16, "TILE_BYTES": 16384, "DECODE_MAX_S": 4,
            "DECODE_MIN_KEYS": 256, "SPLIT_BLOCKS": 0, "DECODE_WORKGROUPS": 256, "DECODE_WG": 128,
            "DECODE_KEY_TILE": 32, "DECODE_FUSED_APPEND": 1, "DECODE_SUBGROUPS": 1,
            "DECODE_MERGE_FOLD": 1, "DECODE_SG_KEYS": 4, "DECODE_SG_LANES": 16, "DECODE_SG_PREFETCH": 1,
            "DECODE_MERGE_PAR": 1, "DECODE_FORM": 0, "DECODE_KP_VROWS": 32,
            "FLASH_ROWS": 32, "FLASH_KEY_TILE": 32, "FLASH_WG": 256, "FLASH_SUBGROUPS": 1, "FLASH_SG_WG": 128,
            "FLASH_SG_ROWS": 2, "FLASH_SG_LANES": 8, "VEC_LOADS": 1, "CLAMP_LOADS": 1,
            "PROMPT_FORM": 0, "PROMPT_TILE_DC": 64, "PROMPT_TILE_VC": 64,
            "PROMPT_TILE_ROWS": 4, "PROMPT_TILE_PREFETCH": 1}

if __name__ == "__main__":
    sys.exit(main())
