# RotaryEmbedding: host checks; the package through the runtime (ONNX conformance, seed manifest, ORT peer).
wgk_add_test(test_rotary_check SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rotary_check.c TIMEOUT 60)
wgk_add_test(test_rotary_runtime SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rotary_runtime.c TIMEOUT 120)
# The conformance data lives outside the repository (../shared): without it these two report skipped.
set(WGK_ONNX_NODE_TESTS "${CMAKE_SOURCE_DIR}/../shared/conformance/onnx-node-tests")
if(TARGET wgk_cli)
  file(GLOB WGK_ROTARY_NODE_DIRS LIST_DIRECTORIES true "${WGK_ONNX_NODE_TESTS}/test_rotary_embedding*")
  add_test(NAME rotary_onnx_conformance COMMAND ${WGK_RUN_TEST} --need ${WGK_ONNX_NODE_TESTS}
    --gpu $<TARGET_FILE:wgk_cli> --expect "8 passed, 0 failed, 8 skipped" -- $<TARGET_FILE:wgk_cli> onnx-test ${WGK_ROTARY_NODE_DIRS})
  set_tests_properties(rotary_onnx_conformance PROPERTIES TIMEOUT 300 LABELS "gpu")
  add_test(NAME rotary_seed_manifest_package COMMAND ${WGK_RUN_TEST} --need ${WGK_ONNX_NODE_TESTS}
    --need ${CMAKE_SOURCE_DIR}/../shared/reference/seeds/rotary-embedding.manifest.json
    --gpu $<TARGET_FILE:wgk_cli> --expect "8 passed, 0 failed, 8 skipped" --
    ${CMAKE_CURRENT_LIST_DIR}/seed_package.sh $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/rotary-seed-package)
  set_tests_properties(rotary_seed_manifest_package PROPERTIES TIMEOUT 300 LABELS "gpu")
endif()
# Calls over the storage-binding limit split into sub-calls (a lowered limit; double reference, poisoned outputs).
wgk_add_test(test_rotary_split SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rotary_split.c TIMEOUT 120 LABELS gpu)
target_link_libraries(test_rotary_split PRIVATE ${MATH_LIB})
