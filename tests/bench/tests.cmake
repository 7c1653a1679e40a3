# The pure parts of wgk bench: statistics and repeats, the consistency rules, the timestamp busy-time union,
# the ceilings' JSON shape (host only, no GPU). `wgk bench` itself: tests/cli/tune_bench_test.py.
wgk_add_test(test_bench SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_bench.c)
target_link_libraries(test_bench PRIVATE ${MATH_LIB})
