set(WGK_REF_TESTKIT "${CMAKE_CURRENT_LIST_DIR}/../npy/testkit.c")
wgk_add_test(test_rotary SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rotary.c ${WGK_REF_TESTKIT} TIMEOUT 120)
target_include_directories(test_rotary PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../npy)
wgk_add_test(test_sparse SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sparse.c TIMEOUT 120)
