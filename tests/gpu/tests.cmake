# The Dawn device layer on the machine's default adapter (lavapipe without a GPU).
wgk_add_test(test_gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu.c TIMEOUT 300 LABELS gpu)
target_link_libraries(test_gpu PRIVATE ${MATH_LIB})
wgk_add_test(test_gpu_abi SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_abi.c TIMEOUT 120 LABELS gpu)
add_test(NAME cli_gpu_quiet COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --
         bash ${CMAKE_CURRENT_LIST_DIR}/cli_quiet.sh $<TARGET_FILE:wgk_cli>)
set_tests_properties(cli_gpu_quiet PROPERTIES TIMEOUT 120 LABELS gpu)
# The persistent pipeline cache: its files (GPU-free), and a second process loading what the first stored.
wgk_add_test(test_blob_cache SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_blob_cache.c TIMEOUT 60)
add_test(NAME pipeline_cache_second_process COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "(^|\n)ok$" --
         bash ${CMAKE_CURRENT_LIST_DIR}/pipeline_cache.sh $<TARGET_FILE:wgk_cli>)
set_tests_properties(pipeline_cache_second_process PROPERTIES TIMEOUT 120 LABELS gpu)
# Progress of long compiles and GPU waits: on a terminal only.
add_test(NAME progress_on_a_terminal COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "(^|\n)ok$" --
         bash ${CMAKE_CURRENT_LIST_DIR}/progress_tty.sh $<TARGET_FILE:wgk_cli>)
set_tests_properties(progress_on_a_terminal PROPERTIES TIMEOUT 120 LABELS gpu)
