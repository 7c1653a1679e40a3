# The public loader's manifest rules key by key (docs/loader-semantics.md, the key table): one change per case to
# a small spec 2.1 package, the outcome the loader's code gives (refused at load, at the call, or runs) against
# wgk pack + wgk explain. No GPU, no loader needed. compare.py (the loader itself beside wgk) is run by hand.
if(TARGET wgk_cli)
  add_test(NAME loader_keys COMMAND ${WGK_RUN_TEST} --expect "loader keys: [0-9]+ of [0-9]+ cases as the loader .*, 0 failed"
           -- ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/keys_test.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(loader_keys PROPERTIES TIMEOUT 300 LABELS "plan")
endif()
