# The package suite: every kernels/<op id>/ found when the test runs, its own test.json through `wgk test` (no
# per-op registration: a new package folder is in it). Three shards, each taking its share of every package's
# cases, so parallel ctest jobs share the work (under the sanitizers one process took 35 minutes).
if(TARGET wgk_cli AND WGK_PYTHON3)
  foreach(k 1 2 3)
    add_test(NAME packages_suite_${k}of3 COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --
             ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/suite.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR}/kernels
             --shard ${k}/3)
    set_tests_properties(packages_suite_${k}of3 PROPERTIES TIMEOUT 600 LABELS "gpu;package;slow")
  endforeach()
  # A data-only package copied into a scratch kernels folder needs nothing outside it: the suite runs it, the
  # reference registry finds its reference, the build's install rule installs it and the installed copy runs.
  add_test(NAME packages_new_data_only COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "\nok: " --
           ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/new_data_only.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR}
           ${CMAKE_BINARY_DIR})
  # the install script writes build/install_manifest_kernels.txt: one install at a time
  set_tests_properties(packages_new_data_only PROPERTIES TIMEOUT 300 LABELS "gpu;package" RESOURCE_LOCK wgk_install)
endif()
