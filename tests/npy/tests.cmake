set(WGK_TESTKIT "${CMAKE_CURRENT_LIST_DIR}/testkit.c")
wgk_add_test(test_half_rng SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_half_rng.c ${WGK_TESTKIT} TIMEOUT 120)
target_include_directories(test_half_rng PRIVATE ${CMAKE_CURRENT_LIST_DIR})
