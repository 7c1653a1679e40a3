wgk_add_test(test_runtime SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runtime.c TIMEOUT 300 LABELS gpu)
wgk_add_test(test_scratch SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_scratch.c TIMEOUT 120 LABELS gpu)
if(TARGET wgk_cli)
  # planning of intermediates: shapes in the call scope, bytes, zeroInit
  add_test(NAME plan_scratch COMMAND wgk_cli explain ${CMAKE_CURRENT_LIST_DIR}/test.Scratch
           --device ${CMAKE_SOURCE_DIR}/tests/plan/lavapipe.device.json --dtype T=float16 --shape X=5x3)
  set_tests_properties(plan_scratch PROPERTIES PASS_REGULAR_EXPRESSION
    "scratch  acc: float32 \\[15\\] \\(60 bytes, zeroed every call\\)\nscratch  copy: float16 \\[15\\] \\(32 bytes\\)")
endif()
wgk_add_test(test_contract SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_contract.c TIMEOUT 300 LABELS gpu)
