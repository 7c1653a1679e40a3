wgk_add_test(test_template SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_template.c TIMEOUT 60)
wgk_add_test(test_enables SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_enables.c TIMEOUT 60)
