wgk_add_test(test_package SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_package.c)
target_link_libraries(test_package PRIVATE OpenSSL::Crypto) # its own reference digests; libwgk has no OpenSSL
if(TARGET wgk_cli) # repacked_by_wgk_pack runs `wgk pack`
  set_property(TEST test_package APPEND PROPERTY ENVIRONMENT "WGK_CLI=$<TARGET_FILE:wgk_cli>")
endif()
# The quick tier's package check: every kernels/*/ (found when the test runs), its small test.json cases on the
# GPU against the double references (tests/package/fast_cases.py); the full test.json runs in the full tier.
if(TARGET wgk_cli)
  add_test(NAME packages_fast_cases COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "of [0-9]+ packages ok"
           --reject "skipped|\nSKIP |FAIL" -- ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/fast_cases.py $<TARGET_FILE:wgk_cli>
           ${CMAKE_SOURCE_DIR}/kernels)
  set_tests_properties(packages_fast_cases PROPERTIES TIMEOUT 600 LABELS "gpu;package")
endif()
