wgk_add_test(test_testcase SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_testcase.c TIMEOUT 60)
