wgk_add_test(test_runtime SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runtime.c TIMEOUT 300 LABELS gpu)
wgk_add_test(test_disable_features SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_disable_features.c TIMEOUT 120 LABELS gpu)
target_link_libraries(test_disable_features PRIVATE ${MATH_LIB})
wgk_add_test(test_scratch SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_scratch.c TIMEOUT 120 LABELS gpu)
if(TARGET wgk_cli)
  # planning of intermediates: shapes in the call scope, bytes, zeroInit
  add_test(NAME plan_scratch COMMAND ${WGK_RUN_TEST} --expect
    "scratch  acc: float32 \\[15\\] \\(60 bytes, zeroed every call\\)\nscratch  copy: float16 \\[15\\] \\(32 bytes\\)"
    -- $<TARGET_FILE:wgk_cli> explain ${CMAKE_CURRENT_LIST_DIR}/test.Scratch
           --device ${CMAKE_SOURCE_DIR}/tests/plan/lavapipe.device.json --dtype T=float16 --shape X=5x3)
  set_tests_properties(plan_scratch PROPERTIES LABELS "plan")
endif()
wgk_add_test(test_contract SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_contract.c TIMEOUT 300 LABELS gpu)
# A package without C: no op hooks, the public API and `wgk test` with inline expected data.
wgk_add_test(test_no_hooks SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_no_hooks.c TIMEOUT 120 LABELS gpu)
# The tools' one read of a package: the package they checked is the one the library loads (rt_kernel_load_package).
wgk_add_test(test_load_package SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_load_package.c TIMEOUT 120 LABELS gpu)
if(TARGET wgk_cli)
  add_test(NAME no_hooks_package_test_json COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "2 passed, 0 failed"
           -- $<TARGET_FILE:wgk_cli> test ${CMAKE_CURRENT_LIST_DIR}/test.TwoPass)
  set_tests_properties(no_hooks_package_test_json PROPERTIES LABELS gpu)
endif()
# Introspection (ports, attributes, variants) on both shipped packages; attribute names checked when set; a
# batched call's output read before submit refused.
wgk_add_test(test_introspect SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_introspect.c TIMEOUT 120 LABELS gpu)
target_link_libraries(test_introspect PRIVATE ${MATH_LIB})
# The buffer pool (issue 14): reused buffers never show another call's bytes (test.Half writes half its output).
wgk_add_test(test_pool SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_pool.c TIMEOUT 120 LABELS gpu)
# Host transfers (issue 14 item 2): a steady decode call waits once (its read-back); staged pieces alternate two
# staging buffers and carry every value through the conversions (float16, int8, int64, int64 as words), threads too.
wgk_add_test(test_context_options SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_context_options.c TIMEOUT 120 LABELS gpu)
wgk_add_test(test_transfer SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_transfer.c TIMEOUT 300 LABELS gpu)
target_link_libraries(test_transfer PRIVATE ${MATH_LIB})
wgk_add_test(test_run_read SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_run_read.c ${CMAKE_CURRENT_LIST_DIR}/rope_check.c TIMEOUT 300 LABELS gpu)
target_link_libraries(test_run_read PRIVATE ${MATH_LIB})
wgk_add_test(test_run_host SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_run_host.c ${CMAKE_CURRENT_LIST_DIR}/rope_check.c TIMEOUT 300 LABELS gpu)
target_link_libraries(test_run_host PRIVATE ${MATH_LIB})
# Optional outputs through the C API (docs/loader-semantics.md rule 35): wgk_call_want_output and
# wgk_call_set_output ask for one; only asked outputs are made and returned; a poisoned caller tensor whose ask was
# withdrawn is not written.
wgk_add_test(test_want_output SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_want_output.c TIMEOUT 120 LABELS gpu)
target_link_libraries(test_want_output PRIVATE ${MATH_LIB})
# A timed-out read gives back what it held (issue 37, Hangs 8): reads of 32 MiB retried after WGK_ERR_TIMEOUT keep
# the staging bytes and the resident size within a few staging buffers, and the final read returns every value.
wgk_add_test(test_read_timeout SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_read_timeout.c TIMEOUT 300 LABELS gpu)
# spec 2.1 viewAlias (docs/loader-semantics.md, the viewAlias row): one tensor given as a pass's input and output
# skips the pass when its viewAlias pairs bind that one buffer range, as the loader skips it; without viewAlias it is
# refused before anything runs.
wgk_add_test(test_view_alias SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_view_alias.c TIMEOUT 120 LABELS gpu)
