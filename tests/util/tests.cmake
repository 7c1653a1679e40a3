wgk_add_test(test_util SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_util.c)
# libwgk.so exports exactly the functions include/wgk.h declares.
add_test(NAME exports_only_wgk COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check_exports.sh $<TARGET_FILE:wgk>
         ${CMAKE_SOURCE_DIR}/include/wgk.h)
