# Planning as text: `wgk explain` / `wgk render` on the shipped RotaryEmbedding package and described devices
# (no GPU is touched). Each case checks the chosen variant (exit 0), or, with wgk_plan_refused, the reasons given
# for rejections (exit 1: nothing can run).
set(WGK_ROPE "${CMAKE_SOURCE_DIR}/kernels/ai.onnx.RotaryEmbedding")
set(WGK_LAVA "${CMAKE_CURRENT_LIST_DIR}/lavapipe.device.json")
set(WGK_NOF16 "${CMAKE_CURRENT_LIST_DIR}/nof16.device.json")
function(wgk_plan_test name regex)
  add_test(NAME plan_${name} COMMAND ${WGK_RUN_TEST} --expect "${regex}" -- $<TARGET_FILE:wgk_cli> ${ARGN})
  set_tests_properties(plan_${name} PROPERTIES LABELS "plan")
endfunction()
function(wgk_plan_refused name regex)
  add_test(NAME plan_${name} COMMAND ${WGK_RUN_TEST} --status 1 --expect "${regex}" -- $<TARGET_FILE:wgk_cli> ${ARGN})
  set_tests_properties(plan_${name} PROPERTIES LABELS "plan")
endfunction()
wgk_plan_test(rank4_pos "variant  rank4_cache2_pos"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --shape X=2x4x3x8 --shape cos_cache=50x4 --shape sin_cache=50x4 --shape position_ids=2x3)
wgk_plan_test(rank3_cache3 "variant  rank3_cache3"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --shape X=2x3x32 --shape cos_cache=2x3x4 --shape sin_cache=2x3x4 --attr num_heads=4)
# One block: the op's check names what is wrong first; under it each distinct reason once, after the variants it
# rejects (they were one line per variant, the same reason repeated).
add_test(NAME plan_rank5_lists_all COMMAND ${WGK_RUN_TEST} --status 1
  --expect "explain: [^\n]*manifest.json: x \\(X\\): rank must be 3 or 4 \\(got 5\\)\nno variant of ai.onnx.RotaryEmbedding accepts the call:\n  rank3_cache2_pos, rank3_cache3, rank3_cache2_pos_f16packed, rank3_cache3_f16packed: ranks.x == 3 is false \\(ranks.x = 5, 3\\)\n  rank4_cache2_pos, rank4_cache3, rank4_cache2_pos_f16packed, rank4_cache3_f16packed: ranks.x == 4 is false \\(ranks.x = 5, 4\\)\n?$"
  -- $<TARGET_FILE:wgk_cli> explain ${WGK_ROPE} --device ${WGK_LAVA} --shape X=2x4x3x8x1 --shape cos_cache=2x3x4 --shape sin_cache=2x3x4)
# float16 on a device without shader-f16 is not refused (issue 15): the packed-f16 variant runs it, and says why.
add_test(NAME plan_f16_packed_without_feature COMMAND ${WGK_RUN_TEST}
  --expect "variant  rank4_cache3_f16packed\n.*  rank4_cache3: f16Ok\\(dtypes.T\\) is false\n.*float16  packed storage, two halves per u32 word"
  -- $<TARGET_FILE:wgk_cli> explain ${WGK_ROPE} --device ${WGK_NOF16} --dtype T=float16 --shape X=2x4x3x8 --shape cos_cache=2x3x4 --shape sin_cache=2x3x4)
# A derive named by a clause is explained down to the comparison that failed, not left at its name.
add_test(NAME plan_reason_down_to_comparison COMMAND ${WGK_RUN_TEST} --status 1
  --expect "kv_num_heads: 3 does not divide num_heads 4\nno variant of com.microsoft.SparseAttention accepts the call \\(all [0-9]+ variants\\): numHeads % kvHeads == 0 is false \\(numHeads % kvHeads = 1, 0\\)\n?$"
  -- $<TARGET_FILE:wgk_cli> explain ${CMAKE_SOURCE_DIR}/kernels/com.microsoft.SparseAttention --device ${WGK_LAVA}
     --shape queryT=1x4x64 --shape keyT=1x4x32 --shape valueT=1x4x32 --shape pastKeyT=1x2x16x16 --shape pastValueT=1x2x16x16
     --shape blockRowIndicesT=1x2 --shape blockColIndicesT=1x1 --shape totalSequenceLengthT=1 --shape keyTotalSequenceLengthsT=1
     --attr num_heads=4 --attr kv_num_heads=3 --attr sparse_block_size=16)
# Every missing required attribute in one message; a misspelled one with the nearest declared name.
wgk_plan_refused(all_required_attributes_named "3 required attributes are missing: kv_num_heads, num_heads, sparse_block_size"
  explain ${CMAKE_SOURCE_DIR}/kernels/com.microsoft.SparseAttention --device ${WGK_LAVA}
     --shape queryT=1x4x64 --shape keyT=1x4x32 --shape valueT=1x4x32 --shape pastKeyT=1x2x16x16 --shape pastValueT=1x2x16x16
     --shape blockRowIndicesT=1x2 --shape blockColIndicesT=1x1 --shape totalSequenceLengthT=1 --shape keyTotalSequenceLengthsT=1)
wgk_plan_refused(misspelled_attribute "attribute 'interleavd' is not part of the ai.onnx.RotaryEmbedding contract; did you mean 'interleaved'\\?"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --shape X=2x4x3x8 --shape cos_cache=2x3x4 --shape sin_cache=2x3x4 --attr interleavd=1)
wgk_plan_test(json "\"variant\": \"rank4_cache3\".*\"workgroups\": \\[[^]]*1,[^]]*1,[^]]*1[^]]*\\]"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --json --shape X=2x4x3x8 --shape cos_cache=2x3x4 --shape sin_cache=2x3x4)
# 4 x 32 x 4200 x 128 / (2 x 4 pairs an invocation) / 32 = 268800 workgroups: folded to 65535 x 5. X is 275 MB: a
# device with 2 GiB storage bindings (on lavapipe's 128 MiB the binding is refused, plan_binding_limit).
wgk_plan_test(dispatch_fold "dispatch 65535 x 5 x 1"
  explain ${WGK_ROPE} --device ${CMAKE_CURRENT_LIST_DIR}/large-buffers.device.json --shape X=4x32x4200x128 --shape cos_cache=4x4200x64 --shape sin_cache=4x4200x64
  --tunable WORKGROUP_SIZE=32)
wgk_plan_test(uniform_values "uniform  pairCount=96(\\.0)? numHeads=4 sequenceLength=3 headSize=8 rotaryDim=8 halfRotaryDim=4 cacheBatchStride=12"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --shape X=2x4x3x8 --shape cos_cache=2x3x4 --shape sin_cache=2x3x4)
wgk_plan_test(render_f16 "^enable f16;.*var<storage, read> position_ids: array<u32>;.*array<f16>"
  render ${WGK_ROPE} --device ${WGK_LAVA} --dtype T=float16 --shape X=2x4x3x8 --shape cos_cache=50x4 --shape sin_cache=50x4 --shape position_ids=2x3)
wgk_plan_refused(attr_constraint "attribute interleaved: value 2 is not one of \\[0, 1\\]"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --attr interleaved=2 --shape X=2x4x3x8 --shape cos_cache=2x3x4 --shape sin_cache=2x3x4)
wgk_add_test(test_plan_errors SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_plan_errors.c)
add_test(NAME plan_explain_json_multiline_when
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/explain_json_valid.sh $<TARGET_FILE:wgk_cli> ${CMAKE_CURRENT_LIST_DIR}/multiline-when)
# Refused at planning, naming the attribute / tunable / pass / limit (issue 10).
wgk_plan_refused(attr_scale_string "attribute scale: string \"abc\" is not a number"
  explain ${CMAKE_SOURCE_DIR}/kernels/com.microsoft.SparseAttention --device ${WGK_LAVA} --shape query=1x16x4096 --shape key=1x16x1024 --shape value=1x16x1024
  --shape past_key=1x8x2048x128 --shape past_value=1x8x2048x128 --shape block_row_indices=8x33 --shape block_col_indices=8x420
  --shape total_sequence_length=1 --shape key_total_sequence_lengths=1 --dtype M=int32 --dtype T=float32
  --attr num_heads=32 --attr kv_num_heads=8 --attr sparse_block_size=64 --attr scale=abc)
wgk_plan_refused(tunable_workgroup_limit "pass main: workgroupSize tunables.WORKGROUP_SIZE = 100000 \\(tunable WORKGROUP_SIZE = 100000\\) exceeds the device's maxComputeInvocationsPerWorkgroup 256"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --tunable WORKGROUP_SIZE=100000 --shape X=2x4x3x8 --shape cos_cache=2x3x4 --shape sin_cache=2x3x4)
wgk_plan_refused(device_limits_wrong_type "bad-limits.device.json:3:13: limits: must be an object of limit name -> integer, not a string"
  explain ${WGK_ROPE} --device ${CMAKE_CURRENT_LIST_DIR}/bad-limits.device.json --shape X=2x4x3x8 --shape cos_cache=2x3x4 --shape sin_cache=2x3x4)
wgk_plan_refused(binding_limit "pass main: binding x \\(0\\) of port x is 275251200 bytes, over the device's maxStorageBufferBindingSize of 134217728 bytes"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --shape X=4x32x4200x128 --shape cos_cache=4x4200x64 --shape sin_cache=4x4200x64)
# Seed format: a derive that fails is a variant's reason quoting the derive's expression, so WORKGROUP_SIZE=0 is
# named. Spec 2.1: it fails the call (docs/loader-semantics.md rule 25), at the derive's position.
wgk_plan_refused(failed_derive_quotes_expression "pairDispatchOk failed: .*derive.pairDispatchOk: ceilDiv\\(\\): division by zero \\(in ceilDiv\\(numel\\(shapes.X\\) / 2, tunables.WORKGROUP_SIZE\\)"
  explain ${CMAKE_BINARY_DIR}/seed-packages/ai.onnx.RotaryEmbedding --device ${WGK_LAVA} --tunable WORKGROUP_SIZE=0 --shape X=2x4x3x8 --shape cos_cache=50x4 --shape sin_cache=50x4 --shape position_ids=2x3)
set_property(TEST plan_failed_derive_quotes_expression APPEND PROPERTY FIXTURES_REQUIRED seed_packages)
wgk_plan_refused(failed_derive_fails_call_spec21 "manifest.json:[0-9]+:[0-9]+: derive.pairDispatchOk: ceilDiv\\(\\): division by zero"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --tunable WORKGROUP_SIZE=0 --shape X=2x4x3x8 --shape cos_cache=50x4 --shape sin_cache=50x4 --shape position_ids=2x3)
set_tests_properties(plan_rank5_lists_all plan_f16_packed_without_feature plan_reason_down_to_comparison
  plan_explain_json_multiline_when PROPERTIES LABELS "plan")
