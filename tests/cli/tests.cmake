# CLI-level tests of wgk run / test / info on the tiny package tests/cli/scale, checked with numpy.
find_program(WGK_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(TARGET wgk_cli AND WGK_PYTHON3)
  add_test(NAME cli_run_test_info COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --
           ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/cli_test.py
           $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli_run_test_info PROPERTIES TIMEOUT 300 LABELS "gpu")
endif()
# wgk tune, the tuning cache a later call uses (WGK_TUNING_CACHE in a temp dir), wgk bench --json.
if(TARGET wgk_cli AND WGK_PYTHON3)
  add_test(NAME cli_tune_bench COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --
           ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/tune_bench_test.py
           $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli_tune_bench PROPERTIES TIMEOUT 600 LABELS "gpu;slow")
endif()
# Bad command-line and file inputs: one clear line each, argument errors before any GPU context. The cases that
# need no adapter are cli_bad_inputs_host, labelled unit: make test-asan-quick runs them against the sanitizer
# build's CLI (a sanitizer report in any command's output fails it); cli_bad_inputs has the ones that need a GPU.
if(TARGET wgk_cli AND WGK_PYTHON3)
  add_test(NAME cli_bad_inputs COMMAND ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/bad_inputs_test.py
           $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR} --gpu)
  set_tests_properties(cli_bad_inputs PROPERTIES TIMEOUT 300 LABELS "gpu")
  add_test(NAME cli_bad_inputs_host COMMAND ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/bad_inputs_test.py
           $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR} --host)
  set_tests_properties(cli_bad_inputs_host PROPERTIES TIMEOUT 300 LABELS "unit")
endif()
# The seed-format fixtures (tests/cli/seed-packages: a manifest each) made whole from kernels/<op id>/ into
# build/seed-packages before any test that loads them (FIXTURES_REQUIRED seed_packages); `wgk pack` digests them.
if(TARGET wgk_cli AND WGK_PYTHON3)
  add_test(NAME packages_seed_fixtures COMMAND ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/seed_packages.py
           $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/seed-packages)
  set_tests_properties(packages_seed_fixtures PROPERTIES FIXTURES_SETUP seed_packages LABELS "infra")
endif()
# Each seed fixture, and `wgk convert` of it, plan every test/bench call as kernels/<op id>/ does.
if(TARGET wgk_cli AND WGK_PYTHON3)
  add_test(NAME cli_convert_plans COMMAND ${WGK_RUN_TEST} -- ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/convert_test.py
           $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  # float16 calls on the described device without shader-f16 plan and render the packed-f16 variants (issue 15)
  set_tests_properties(cli_convert_plans PROPERTIES TIMEOUT 1200 LABELS "plan;slow")
endif()
# CLI conventions: every command's --help / -h / `wgk help CMD` (every option explained), wgk --version.
if(TARGET wgk_cli AND WGK_PYTHON3)
  add_test(NAME cli_help COMMAND ${WGK_RUN_TEST} -- ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/help_test.py
           $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli_help PROPERTIES LABELS "cli")
endif()
# Refusals as one block (what is wrong first, each distinct variant reason once under it), every missing
# required attribute named, a misspelled --attr answered with the nearest declared name.
if(TARGET wgk_cli AND WGK_PYTHON3)
  add_test(NAME cli_error_block COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> -- ${WGK_PYTHON3}
           ${CMAKE_CURRENT_LIST_DIR}/error_block_test.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli_error_block PROPERTIES TIMEOUT 300 LABELS "gpu")
endif()
# wgk list: the search path in order (shadowing), the Hub cache's snapshots, verified / unverified / broken, --json.
if(TARGET wgk_cli AND WGK_PYTHON3)
  add_test(NAME cli_list COMMAND ${WGK_RUN_TEST} -- ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/list_test.py
           $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli_list PROPERTIES LABELS "cli")
endif()
# wgk pack: metadata.json from the files (public layout, include lists, digests), --check, the mismatch hint.
if(TARGET wgk_cli AND WGK_PYTHON3)
  add_test(NAME cli_pack COMMAND ${WGK_RUN_TEST} --expect "\nok: wgk pack|^ok: wgk pack" -- ${WGK_PYTHON3}
           ${CMAKE_CURRENT_LIST_DIR}/pack_test.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli_pack PROPERTIES TIMEOUT 300 LABELS "cli")
endif()
# wgk bench --peer / --reference: a column per peer in the default table, each cell recomputed from the peer files and
# the run's --json report; the peer files' refusals alone (no GPU) in the quick tier.
if(TARGET wgk_cli AND WGK_PYTHON3)
  add_test(NAME cli_bench_peers_args COMMAND ${WGK_RUN_TEST} --expect "bench peers: ok" -- ${WGK_PYTHON3}
           ${CMAKE_CURRENT_LIST_DIR}/bench_peers_test.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR} --args-only)
  set_tests_properties(cli_bench_peers_args PROPERTIES TIMEOUT 120 LABELS "cli")
  add_test(NAME cli_bench_peers COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "bench peers: ok" --
           ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/bench_peers_test.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli_bench_peers PROPERTIES TIMEOUT 600 LABELS "gpu;slow")
endif()
# test.json cases with .npy inputs and expected files; `wgk test --record` writes them from a numpy reference.
if(TARGET wgk_cli AND WGK_PYTHON3)
  add_test(NAME cli_test_record COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "\nok: wgk test --record|^ok: wgk test --record"
           -- ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/record_test.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli_test_record PROPERTIES TIMEOUT 300 LABELS "gpu;cli")
endif()
# wgk check DIR: every problem of a package being authored listed (position, rule, values); each case compiles and runs.
if(TARGET wgk_cli AND WGK_PYTHON3)
  add_test(NAME cli_check COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "\nok: wgk check|^ok: wgk check"
           -- ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/check_test.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli_check PROPERTIES TIMEOUT 300 LABELS "gpu;cli")
endif()
