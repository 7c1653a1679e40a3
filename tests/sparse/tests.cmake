# SparseAttention: host-check refusals through the public API; the ORT CPU oracle on random single-node models.
wgk_add_test(test_sparse_refusals SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sparse_refusals.c TIMEOUT 300)
if(TARGET wgk_cli)
  add_test(NAME sparse_package_test_json COMMAND wgk_cli test ${CMAKE_SOURCE_DIR}/kernels/com.microsoft.SparseAttention)
  set_tests_properties(sparse_package_test_json PROPERTIES TIMEOUT 600 PASS_REGULAR_EXPRESSION " 0 failed")
endif()
if(TARGET wgk_cli)
  foreach(seed 23 5)
    add_test(NAME ort_sparse_seed${seed}
      COMMAND ${CMAKE_CURRENT_LIST_DIR}/ort_sparse.sh $<TARGET_FILE:wgk_cli> ${CMAKE_BINARY_DIR}/ort-sparse-${seed} ${seed})
    set_tests_properties(ort_sparse_seed${seed} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
      PASS_REGULAR_EXPRESSION "9 passed, 0 failed, 0 skipped.*2 passed, 0 failed, 0 skipped")
  endforeach()
endif()
if(TARGET wgk_cli)
  add_test(NAME sparse_sgmat_selection
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/sgmat_selection.sh $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(sparse_sgmat_selection PROPERTIES TIMEOUT 60 PASS_REGULAR_EXPRESSION "sgmat selection: ok")
endif()
if(TARGET wgk_cli)
  # decode shapes (S <= 4, cache >= DECODE_MIN_KEYS) take the split decode variants; prompt shapes do not
  set(WGK_SPARSE "${CMAKE_SOURCE_DIR}/kernels/com.microsoft.SparseAttention")
  # (key and value are given per test: wgk explain refuses a --shape given twice)
  set(WGK_PHI3 --device ${CMAKE_SOURCE_DIR}/tests/plan/lavapipe.device.json
      --shape past_key=1x8x2048x128 --shape past_value=1x8x2048x128 --shape block_row_indices=8x33
      --shape block_col_indices=8x420 --shape total_sequence_length=1 --shape key_total_sequence_lengths=1
      --dtype M=int32 --dtype T=float32 --attr num_heads=32 --attr kv_num_heads=8 --attr sparse_block_size=64)
  add_test(NAME sparse_decode_selected COMMAND wgk_cli explain ${WGK_SPARSE} ${WGK_PHI3} --shape query=1x1x4096
           --shape key=1x1x1024 --shape value=1x1x1024)
  set_tests_properties(sparse_decode_selected PROPERTIES PASS_REGULAR_EXPRESSION
    "variant  separate_decode\n.*scratch  partial: float32 \\[1, 32, 32, 130\\].*pass     decode_split.*dispatch 32 x 8 x 1.*pass     decode_merge")
  add_test(NAME sparse_prompt_not_decode COMMAND wgk_cli explain ${WGK_SPARSE} ${WGK_PHI3} --shape query=1x16x4096
           --shape key=1x16x1024 --shape value=1x16x1024)
  set_tests_properties(sparse_prompt_not_decode PROPERTIES PASS_REGULAR_EXPRESSION
    "variant  separate\n.*separate_decode: decodeOk is false")
endif()
