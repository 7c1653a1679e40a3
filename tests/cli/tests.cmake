# CLI-level tests of wgk run / test / info on the tiny package tests/cli/scale, checked with numpy.
find_program(WGK_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(TARGET wgk_cli AND WGK_PYTHON3)
  add_test(NAME cli_run_test_info COMMAND ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/cli_test.py
           $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli_run_test_info PROPERTIES TIMEOUT 300 LABELS "gpu")
endif()
