wgk_add_test(test_util SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_util.c)
wgk_add_test(test_suggest SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_suggest.c)
# libwgk.so exports exactly the functions include/wgk.h declares.
add_test(NAME exports_only_wgk COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check_exports.sh $<TARGET_FILE:wgk>
         ${CMAKE_SOURCE_DIR}/include/wgk.h)
set_tests_properties(exports_only_wgk PROPERTIES LABELS "lint")
# The test machinery: hermetic folders, skips as exit 77, the real-adapter check, run_test.py's exit status.
add_executable(wgk_test_probe ${CMAKE_CURRENT_LIST_DIR}/probe.c)
target_include_directories(wgk_test_probe PRIVATE "${CMAKE_SOURCE_DIR}/src" "${CMAKE_SOURCE_DIR}/tests")
target_link_libraries(wgk_test_probe PRIVATE wgk_test_support)
set_target_properties(wgk_test_probe PROPERTIES BUILD_RPATH "${WGK_DAWN_DIR}")
add_test(NAME test_infra_selftest COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/selftest.sh $<TARGET_FILE:wgk_test_probe>
         ${CMAKE_SOURCE_DIR}/tests/util/run_test.py $<TARGET_FILE:wgk_cli> $<TARGET_FILE:test_scratch>)
set_tests_properties(test_infra_selftest PROPERTIES TIMEOUT 300 LABELS "gpu" ENVIRONMENT
  "WGK_SOURCE_DIR=${CMAKE_SOURCE_DIR};CMOCKA_MESSAGE_OUTPUT=stdout")
wgk_add_test(test_workers SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_workers.c)
# Every skip says why (an exit 77 prints "SKIP: <reason>", cmocka skips only through wgk_skip, pytest skips carry
# a reason); the check refuses each kind of unexplained skip. (Every test has a label: a configure error if not.)
add_test(NAME tests_skip_reasons COMMAND ${WGK_RUN_TEST} --expect "^ok: every skip" --
         ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/check_skips.py ${CMAKE_SOURCE_DIR})
add_test(NAME tests_skip_reasons_refuses COMMAND ${WGK_RUN_TEST} --expect "^ok: the check refuses" --
         ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/check_skips.py --self-test)
set_tests_properties(tests_skip_reasons tests_skip_reasons_refuses PROPERTIES TIMEOUT 60 LABELS "lint")
# wgk's own SHA-256, SHA-1 and base64 against OpenSSL's, which only this test (and test_package) links
wgk_add_test(test_sha SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sha.c)
target_link_libraries(test_sha PRIVATE OpenSSL::Crypto)
if(WGK_PYTHON3 AND TARGET wgk_cli)
  # libcurl and Dawn opened on first use, OpenSSL not linked: what each cost every process's start (issue 39)
  add_test(NAME libraries_opened_on_use COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --
           ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/opened_on_use_test.py $<TARGET_FILE:wgk_cli> $<TARGET_FILE:wgk>)
  set_tests_properties(libraries_opened_on_use PROPERTIES TIMEOUT 120 LABELS "gpu")
endif()
