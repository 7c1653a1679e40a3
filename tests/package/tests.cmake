wgk_add_test(test_package SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_package.c)
