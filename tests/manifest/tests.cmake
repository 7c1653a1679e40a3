wgk_add_test(test_manifest SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_manifest.c ${CMAKE_CURRENT_LIST_DIR}/test_golden.c)
