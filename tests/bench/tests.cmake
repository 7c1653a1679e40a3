# The pure parts of wgk bench: statistics and repeats, the consistency rules, the timestamp busy-time union,
# the ceilings' JSON shape (host only, no GPU). `wgk bench` itself: tests/cli/tune_bench_test.py.
wgk_add_test(test_bench SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_bench.c)
target_link_libraries(test_bench PRIVATE ${MATH_LIB})
# scripts/plot-bench.py draws a committed run's figures as the JSON has them (matplotlib: the test bootstrap set).
add_test(NAME bench_plot COMMAND ${WGK_RUN_TEST} --expect "ok: [0-9]+ values drawn" --
         ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/plot_bench_test.py ${CMAKE_SOURCE_DIR})
set_tests_properties(bench_plot PROPERTIES TIMEOUT 120 LABELS "bench")
