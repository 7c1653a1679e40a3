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
      PASS_REGULAR_EXPRESSION "8 passed, 0 failed, 0 skipped.*2 passed, 0 failed, 0 skipped")
  endforeach()
endif()
if(TARGET wgk_cli)
  add_test(NAME sparse_sgmat_selection
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/sgmat_selection.sh $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(sparse_sgmat_selection PROPERTIES TIMEOUT 60 PASS_REGULAR_EXPRESSION "sgmat selection: ok")
endif()
