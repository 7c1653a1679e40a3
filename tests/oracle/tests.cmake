# Oracle test: wgk's expression language and templates against @huggingface/jinja 0.5.10
# (the engine the public loader uses). node_modules comes from scripts/bootstrap.sh (npm ci in
# tests/oracle); without it run.mjs exits 1, so the test fails rather than skips.
find_program(WGK_NODE node REQUIRED)
if(TARGET wgk_cli)
  # "0 passed, 0 failed" (no case selected or read) would pass on its exit status alone: at least one must pass.
  add_test(NAME oracle_jinja COMMAND ${WGK_RUN_TEST} --expect "(^|\n)[1-9][0-9]* passed, 0 failed\n" --
           ${WGK_NODE} ${CMAKE_CURRENT_LIST_DIR}/run.mjs --wgk $<TARGET_FILE:wgk_cli>)
  set_tests_properties(oracle_jinja PROPERTIES TIMEOUT 300 LABELS "oracle;slow")
else()
  message(WARNING "oracle_jinja: no wgk_cli target, test not registered")
endif()
