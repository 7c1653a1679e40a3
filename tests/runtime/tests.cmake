wgk_add_test(test_runtime SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runtime.c TIMEOUT 300 LABELS gpu)
