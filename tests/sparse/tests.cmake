# SparseAttention: host-check refusals through the public API (the ORT CPU peer is tests/ort, for every op).
wgk_add_test(test_sparse_refusals SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sparse_refusals.c TIMEOUT 300)
wgk_add_test(test_sparse_decode_reuse SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sparse_decode_reuse.c TIMEOUT 300)
set_property(TEST test_sparse_decode_reuse APPEND PROPERTY FIXTURES_REQUIRED seed_packages)  # the seed fixture
# The package's own test.json runs in the package suite (tests/packages: packages_suite_*of5).
if(TARGET wgk_cli)
  add_test(NAME sparse_sgmat_selection COMMAND ${WGK_RUN_TEST} --expect "sgmat selection: ok" --
    ${CMAKE_CURRENT_LIST_DIR}/sgmat_selection.sh $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(sparse_sgmat_selection PROPERTIES TIMEOUT 60)
endif()
if(TARGET wgk_cli)
  # decode shapes (S <= 4, cache >= DECODE_MIN_KEYS) take the split decode variants; prompt shapes do not
  set(WGK_SPARSE "${CMAKE_SOURCE_DIR}/kernels/com.microsoft.SparseAttention")
  # (key and value are given per test: wgk explain refuses a --shape given twice)
  set(WGK_PHI3 --device ${CMAKE_SOURCE_DIR}/tests/plan/lavapipe.device.json
      --shape past_key=1x8x2048x128 --shape past_value=1x8x2048x128 --shape block_row_indices=8x33
      --shape block_col_indices=8x420 --shape total_sequence_length=1 --shape key_total_sequence_lengths=1
      --dtype M=int32 --dtype T=float32 --attr num_heads=32 --attr kv_num_heads=8 --attr sparse_block_size=64)
  # without rotary, two passes: the split appends the new K/V rows itself; the merge takes a workgroup per row
  add_test(NAME sparse_decode_selected COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_decode\n.*scratch  partial: float32 \\[1, 32, 33, 130\\][^\n]*\npass     decode_split[^\n]*\n  dispatch 32 x 8 x 1\n[^\n]*\npass     decode_merge[^\n]*\n  dispatch 32 x 1 x 1\n"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_SPARSE} ${WGK_PHI3} --shape query=1x1x4096
    --shape key=1x1x1024 --shape value=1x1x1024)
  # the subgroup split (lane groups of 8 invocations): chosen where subgroups hold >= 8 invocations (the described
  # device: 32), with the same grid and partial layout; DECODE_SUBGROUPS 0, or subgroups of 4, take the staged split
  set(WGK_PHI3_DECODE ${WGK_PHI3} --shape query=1x1x4096 --shape key=1x1x1024 --shape value=1x1x1024)
  list(FILTER WGK_PHI3_DECODE EXCLUDE REGEX "lavapipe.device.json|^--device$")
  # by default the merge is folded into it (`separate_decode_sg_fold`): kv_append, then one split pass whose last
  # workgroup per head chunk merges (a counter per chunk); DECODE_MERGE_FOLD 0 keeps the merge pass
  add_test(NAME sparse_decode_sg_fold_selected COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_decode_sg_fold\n.*scratch  partial: float32 \\[1, 32, 33, 130\\][^\n]*\nscratch  counter: uint32 \\[8\\][^\n]*\npass     kv_append[^\n]*\n  dispatch 2 x 1 x 1\n[^\n]*\npass     decode_split \\(sparse_decode_split, sparse-decode-split-sg.wgsl.jinja\\)\n  dispatch 32 x 8 x 1\n[^\n]*\ntunables"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_SPARSE} ${WGK_PHI3_DECODE} --device ${CMAKE_CURRENT_LIST_DIR}/sgmat-device.json)
  # DECODE_FORM 1 keeps the variant and its grid: kv_append takes a workgroup more per (row, head chunk) for the
  # union lists (2 + 8), and `counter` holds each split's slot after the tickets: 8 x (1 + 32 splits x (1 + 2))
  add_test(NAME sparse_decode_kp_selected COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_decode_sg_fold\n.*scratch  partial: float32 \\[1, 32, 33, 130\\][^\n]*\nscratch  counter: uint32 \\[776\\][^\n]*\npass     kv_append[^\n]*\n  dispatch 10 x 1 x 1\n[^\n]*\npass     decode_split \\(sparse_decode_split, sparse-decode-split-sg.wgsl.jinja\\)\n  dispatch 32 x 8 x 1\n[^\n]*\ntunables"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_SPARSE} ${WGK_PHI3_DECODE} --device ${CMAKE_CURRENT_LIST_DIR}/sgmat-device.json
    --tunable DECODE_FORM=1)
  add_test(NAME sparse_decode_sg_selected COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_decode_sg\n.*scratch  partial: float32 \\[1, 32, 33, 130\\][^\n]*\npass     decode_split \\(sparse_decode_split, sparse-decode-split-sg.wgsl.jinja\\)\n  dispatch 32 x 8 x 1\n[^\n]*\npass     decode_merge[^\n]*\n  dispatch 32 x 1 x 1\n"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_SPARSE} ${WGK_PHI3_DECODE} --device ${CMAKE_CURRENT_LIST_DIR}/sgmat-device.json
    --tunable DECODE_MERGE_FOLD=0)
  add_test(NAME sparse_decode_sg_tuned_off COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_decode\n.*separate_decode_sg: decodeSgOk is false: tunables.DECODE_SUBGROUPS != 0 is false.*pass     decode_split \\(sparse_decode_split, sparse-decode-split.wgsl.jinja\\)"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_SPARSE} ${WGK_PHI3_DECODE} --device ${CMAKE_CURRENT_LIST_DIR}/sgmat-device.json
    --tunable DECODE_SUBGROUPS=0)
  add_test(NAME sparse_decode_sg_not_on_subgroups_of_4 COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_decode\n.*separate_decode_sg: decodeSgOk is false: hasSubgroups8 is false"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_SPARSE} ${WGK_PHI3_DECODE} --device ${CMAKE_CURRENT_LIST_DIR}/subgroups4.device.json)
  # the fused separate split binds 10 storage buffers: a device allowing 8 takes the three-pass form
  add_test(NAME sparse_decode_append_on_8_storage_buffers COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_decode_append\n.*separate_decode: needs 10 storage buffers per stage, the device allows 8.*pass     kv_append.*pass     decode_split.*pass     decode_merge"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_SPARSE} --device ${CMAKE_CURRENT_LIST_DIR}/storage8.device.json
    --shape past_key=1x8x2048x128 --shape past_value=1x8x2048x128 --shape block_row_indices=8x33
    --shape block_col_indices=8x420 --shape total_sequence_length=1 --shape key_total_sequence_lengths=1
    --dtype M=int32 --dtype T=float32 --attr num_heads=32 --attr kv_num_heads=8 --attr sparse_block_size=64
    --shape query=1x1x4096 --shape key=1x1x1024 --shape value=1x1x1024)
  # the flash prompt with the queries in registers: chosen where subgroups hold >= 8 invocations, 8 * TQ * HG / R
  # invocations up to FLASH_SG_WG and the device's limits (by default 128 invocations, 2 rows a lane group: TQ 8
  # positions x 4 heads; with FLASH_SG_WG 512 the described device's 256 along x, the WebGPU default, caps it at
  # TQ 16); FLASH_SUBGROUPS 0, or subgroups of 4, take the staged flash
  set(WGK_PHI3_PROMPT ${WGK_PHI3} --shape query=1x2048x4096 --shape key=1x2048x1024 --shape value=1x2048x1024)
  list(FILTER WGK_PHI3_PROMPT EXCLUDE REGEX "lavapipe.device.json|^--device$")
  add_test(NAME sparse_flash_sg_selected COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_flash_sg\n.*pass     attend \\(sparse_attention_flash_sg, sparse-attention-flash-sg.wgsl.jinja\\)\n  dispatch 257 x 8 x 1\n"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_SPARSE} ${WGK_PHI3_PROMPT} --device ${CMAKE_CURRENT_LIST_DIR}/subgroups32.device.json)
  add_test(NAME sparse_flash_sg_wg512 COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_flash_sg\n.*pass     attend \\(sparse_attention_flash_sg, sparse-attention-flash-sg.wgsl.jinja\\)\n  dispatch 129 x 8 x 1\n"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_SPARSE} ${WGK_PHI3_PROMPT} --device ${CMAKE_CURRENT_LIST_DIR}/subgroups32.device.json
    --tunable FLASH_SG_WG=512)
  add_test(NAME sparse_flash_sg_tuned_off COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_flash\n.*separate_flash_sg: flashSgOk is false: tunables.FLASH_SUBGROUPS != 0 is false.*pass     attend \\(sparse_attention_flash, sparse-attention-flash.wgsl.jinja\\)"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_SPARSE} ${WGK_PHI3_PROMPT} --device ${CMAKE_CURRENT_LIST_DIR}/subgroups32.device.json
    --tunable FLASH_SUBGROUPS=0)
  add_test(NAME sparse_flash_sg_not_on_subgroups_of_4 COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_flash\n.*separate_flash_sg: flashSgOk is false: hasSubgroups8 is false"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_SPARSE} ${WGK_PHI3_PROMPT} --device ${CMAKE_CURRENT_LIST_DIR}/subgroups4.device.json)
  # the tiled prompt (PROMPT_FORM 1; the default 0 keeps the forms above): a workgroup per 64 positions of a head,
  # chunks sized to the device's workgroup memory (32 KiB, lavapipe's, on the described device: 32 dimensions and
  # 16 V rows), before the subgroup-matrix form the device also offers; a
  # device with the WebGPU default of 16 KiB has no room for its 64 x 64 weights and takes the form it would have
  add_test(NAME sparse_tiled_selected COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_tiled\n.*pass     attend \\(sparse_attention_tiled, sparse-attention-tiled.wgsl.jinja\\)\n  dispatch 33 x 32 x 1\n"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_SPARSE} ${WGK_PHI3_PROMPT} --device ${CMAKE_CURRENT_LIST_DIR}/sgmat-device.json
    --tunable PROMPT_FORM=1)
  add_test(NAME sparse_tiled_chunks_lavapipe COMMAND ${WGK_RUN_TEST} --expect
    "const DC: u32 = 32u;\nconst VC: u32 = 16u;\n"
    -- $<TARGET_FILE:wgk_cli> render ${WGK_SPARSE} ${WGK_PHI3_PROMPT} --device ${CMAKE_CURRENT_LIST_DIR}/sgmat-device.json
    --tunable PROMPT_FORM=1 --pass attend)
  add_test(NAME sparse_tiled_needs_workgroup_memory COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_flash_sg\n.*separate_tiled: tiledOk is false: tiledDC > 0 is false"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_SPARSE} ${WGK_PHI3_PROMPT} --device ${CMAKE_CURRENT_LIST_DIR}/subgroups32.device.json
    --tunable PROMPT_FORM=1)
  add_test(NAME sparse_prompt_not_decode COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_flash\n.*separate_decode: decodeOk is false"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_SPARSE} ${WGK_PHI3} --shape query=1x16x4096 --shape key=1x16x1024 --shape value=1x16x1024)
  # do_rotary and rotary_interleaved are flags: any other value is refused, naming the attribute (ORT reads 2 as off).
  foreach(flag do_rotary rotary_interleaved)
    add_test(NAME sparse_${flag}_flag_only COMMAND ${WGK_RUN_TEST} --status 1 --expect "attribute ${flag}: value 2 is not one of \\[0, 1\\]"
      -- $<TARGET_FILE:wgk_cli> explain ${WGK_SPARSE} ${WGK_PHI3} --shape query=1x16x4096 --shape key=1x16x1024
      --shape value=1x16x1024 --attr ${flag}=2)
  endforeach()
endif()
if(TARGET wgk_cli)
  # wgk explain names the float16 form and why, on a described device with shader-f16 and with it hidden
  set(WGK_ROPE_F16 ${CMAKE_SOURCE_DIR}/kernels/ai.onnx.RotaryEmbedding --device ${CMAKE_SOURCE_DIR}/tests/plan/lavapipe.device.json
      --shape X=2x4x3x8 --shape cos_cache=50x4 --shape sin_cache=50x4 --shape position_ids=2x3 --dtype T=float16)
  add_test(NAME f16_explain_native COMMAND ${WGK_RUN_TEST} --expect
    "variant  rank4_cache2_pos\n.*float16  f16 storage and arithmetic: x, cos, sin, y \\(the device has shader-f16\\)"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_ROPE_F16})
  add_test(NAME f16_explain_packed COMMAND ${WGK_RUN_TEST} --expect
    "variant  rank4_cache2_pos_f16packed\n.*rank4_cache2_pos: f16Ok\\(dtypes.T\\) is false\n.*float16  packed storage, two halves per u32 word \\(pack2x16float\\), f32 arithmetic: x, cos, sin, y \\(the device lacks shader-f16"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_ROPE_F16})
  set_tests_properties(f16_explain_packed PROPERTIES ENVIRONMENT "WGK_DISABLE_FEATURES=shader-f16")
  # Phi-3-small's SparseAttention in float16 (N 32, KN 8, block 64), planned for lavapipe; each test adds its shapes
  set(WGK_PHI3_F16 ${WGK_SPARSE} --device ${CMAKE_SOURCE_DIR}/tests/plan/lavapipe.device.json
      --shape total_sequence_length=1 --shape key_total_sequence_lengths=1 --dtype M=int32 --dtype T=float16
      --attr num_heads=32 --attr kv_num_heads=8 --attr sparse_block_size=64)
  add_test(NAME f16_explain_sparse_decode_packed COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_decode_f16packed\n.*separate_decode: sparseContract is false: f16Ok\\(dtypes.T\\) is false\n.*float16  packed storage.*: queryT, keyT, valueT, pastKeyT, pastValueT, outputT \\(the device lacks shader-f16"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_PHI3_F16}
    --shape past_key=1x8x2048x128 --shape past_value=1x8x2048x128 --shape block_row_indices=8x33
    --shape block_col_indices=8x420 --shape query=1x1x4096 --shape key=1x1x1024 --shape value=1x1x1024)
  # the Phi-3 prompt in float16 without shader-f16 takes the packed flash form, not the plain packed pass
  add_test(NAME f16_explain_sparse_prompt_packed COMMAND ${WGK_RUN_TEST} --expect
    "variant  separate_flash_f16packed\n.*separate_flash: sparseContract is false: f16Ok\\(dtypes.T\\) is false\n.*float16  packed storage.*\\(the device lacks shader-f16"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_PHI3_F16}
    --shape past_key=1x8x4096x128 --shape past_value=1x8x4096x128 --shape block_row_indices=8x65
    --shape block_col_indices=8x1000 --shape query=1x4096x4096 --shape key=1x4096x1024 --shape value=1x4096x1024)
  set_tests_properties(f16_explain_sparse_prompt_packed PROPERTIES ENVIRONMENT "WGK_DISABLE_FEATURES=shader-f16")
  set_tests_properties(f16_explain_sparse_decode_packed PROPERTIES ENVIRONMENT "WGK_DISABLE_FEATURES=shader-f16")
  # an unknown name is refused, naming the variable and the names known
  add_test(NAME f16_disable_features_unknown COMMAND ${WGK_RUN_TEST} --status 1 --expect
    "WGK_DISABLE_FEATURES: unknown feature \"shader-f32\"; expected one of shader-f16"
    -- $<TARGET_FILE:wgk_cli> explain ${WGK_ROPE_F16})
  set_tests_properties(f16_disable_features_unknown PROPERTIES ENVIRONMENT "WGK_DISABLE_FEATURES=subgroups, shader-f32")
endif()
# The planning checks above need no GPU.
if(TARGET wgk_cli)
  set_tests_properties(sparse_sgmat_selection sparse_decode_selected sparse_decode_sg_selected sparse_decode_sg_fold_selected
    sparse_decode_kp_selected
    sparse_decode_sg_tuned_off
    sparse_decode_sg_not_on_subgroups_of_4 sparse_decode_append_on_8_storage_buffers sparse_flash_sg_selected
    sparse_flash_sg_wg512 sparse_flash_sg_tuned_off sparse_flash_sg_not_on_subgroups_of_4 sparse_prompt_not_decode
    sparse_tiled_selected sparse_tiled_chunks_lavapipe sparse_tiled_needs_workgroup_memory sparse_do_rotary_flag_only sparse_rotary_interleaved_flag_only f16_explain_native f16_explain_packed
    f16_explain_sparse_decode_packed f16_explain_sparse_prompt_packed f16_disable_features_unknown
    PROPERTIES LABELS "plan")
endif()
