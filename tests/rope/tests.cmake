# RotaryEmbedding: host checks; the package through the runtime (ONNX conformance, seed manifest, ORT peer).
wgk_add_test(test_rotary_check SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rotary_check.c TIMEOUT 60)
wgk_add_test(test_rotary_runtime SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rotary_runtime.c TIMEOUT 120)
# The ONNX node tests (tests/conformance, in the repository; folders found when the test runs) on the shipped
# package, and on the seed-format fixture as an unverified local package.
set(WGK_ONNX_NODE_TESTS "${CMAKE_SOURCE_DIR}/tests/conformance/onnx-node-tests")
if(TARGET wgk_cli)
  add_test(NAME rotary_onnx_conformance COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli>
    --expect "\n[1-9][0-9]* passed, 0 failed, 0 skipped\n" -- ${CMAKE_CURRENT_LIST_DIR}/onnx_conformance.sh $<TARGET_FILE:wgk_cli>
    ${WGK_ONNX_NODE_TESTS})
  set_tests_properties(rotary_onnx_conformance PROPERTIES TIMEOUT 300 LABELS "gpu;conformance")
  add_test(NAME rotary_seed_manifest_package COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli>
    --expect "\n[1-9][0-9]* passed, 0 failed, 0 skipped\n" --
    ${CMAKE_CURRENT_LIST_DIR}/seed_package.sh $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/rotary-seed-package)
  set_tests_properties(rotary_seed_manifest_package PROPERTIES TIMEOUT 300 LABELS "gpu;conformance")
  # A folder added after the build was configured is run: a copy of the data with one case more.
  add_test(NAME rotary_onnx_conformance_found_at_run_time COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli>
    --expect "(^|\n)# 9 single-node folders\n.*\n9 passed, 0 failed, 0 skipped\n" --
    ${CMAKE_CURRENT_LIST_DIR}/conformance_added_later.sh $<TARGET_FILE:wgk_cli> ${WGK_ONNX_NODE_TESTS})
  set_tests_properties(rotary_onnx_conformance_found_at_run_time PROPERTIES TIMEOUT 300 LABELS "gpu;conformance")
endif()
# Calls over the storage-binding limit split into sub-calls (a lowered limit; double reference, poisoned outputs).
wgk_add_test(test_rotary_split SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rotary_split.c TIMEOUT 120 LABELS gpu)
target_link_libraries(test_rotary_split PRIVATE ${MATH_LIB})
