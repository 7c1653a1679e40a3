# The package suite: every kernels/<op id>/ found when the test runs, its own test.json through `wgk test` (no
# per-op registration: a new package folder is in it). Five shards, each taking its share of every package's
# cases, so parallel ctest jobs share the work (under the sanitizers one process took 35 minutes; with the tiled
# prompt's and the key-per-invocation decode's cases one shard of three took 560 s of its 600 on lavapipe, and
# on a machine loaded by other builds two shards of five still passed 600 s: the tiled prompt's cold lavapipe
# compiles take up to a minute a case, so the limit, there to catch a hang, is 1500 s).
if(TARGET wgk_cli AND WGK_PYTHON3)
  foreach(k 1 2 3 4 5)
    add_test(NAME packages_suite_${k}of5 COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --
             ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/suite.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR}/kernels
             --shard ${k}/5)
    set_tests_properties(packages_suite_${k}of5 PROPERTIES TIMEOUT 1500 LABELS "gpu;package;slow")
  endforeach()
  # float16 on every device (issue 15): with shader-f16 hidden, every package's float16 cases (ids containing
  # f16; every kernels/<op id>/ found when the test runs) run its packed-f16 variants (two halves per u32 word)
  # and pass; none may be skipped. A package with no float16 case is named and left out. Three shards, each taking
  # a third of every package's float16 cases.
  foreach(k 1 2 3)
    add_test(NAME packages_f16_packed_${k}of3 COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli>
             --expect "\n[1-9][0-9]*/[1-9][0-9]* packages pass" --reject "skipped|SKIP|FAIL" --
             ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/suite.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR}/kernels
             --case f16 --require "_f16packed, max abs err" --shard ${k}/3)
    set_tests_properties(packages_f16_packed_${k}of3 PROPERTIES TIMEOUT 1500 LABELS "gpu;package;slow"
                         ENVIRONMENT "WGK_DISABLE_FEATURES=shader-f16")
  endforeach()
  # A data-only package copied into a scratch kernels folder needs nothing outside it: the suite runs it, the
  # reference registry finds its reference, the build's install rule installs it and the installed copy runs.
  add_test(NAME packages_new_data_only COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "\nok: " --
           ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/new_data_only.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR}
           ${CMAKE_BINARY_DIR})
  # the install script writes build/install_manifest_kernels.txt: one install at a time
  set_tests_properties(packages_new_data_only PROPERTIES TIMEOUT 300 LABELS "gpu;package" RESOURCE_LOCK wgk_install)
endif()
