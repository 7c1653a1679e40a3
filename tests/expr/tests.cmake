wgk_add_test(test_expr SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_expr.c)
target_include_directories(test_expr PRIVATE ${CMAKE_SOURCE_DIR}/tests)
wgk_add_test(test_device_value SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_device_value.c)
