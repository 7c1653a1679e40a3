# The Python binding (python/wgk) through Debian's python3-pytest against numpy double references, on the GPU.
# The binding loads the build's libwgk.so (WGK_LIBRARY).
if(TARGET wgk_cli)
  set(WGK_PYTHON_ENV "WGK_LIBRARY=$<TARGET_FILE:wgk>" "WGK_CLI=$<TARGET_FILE:wgk_cli>"
      "PYTHONPATH=${CMAKE_SOURCE_DIR}/python" "PYTHONDONTWRITEBYTECODE=1")
  set(WGK_PYTHON_SANITIZER_ENV "")
  if(WGK_SANITIZE) # a sanitized libwgk in an unsanitized python3: the ASan runtime goes first; python's leaks are not ours
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so OUTPUT_VARIABLE WGK_ASAN_RUNTIME
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(WGK_PYTHON_SANITIZER_ENV "LD_PRELOAD=${WGK_ASAN_RUNTIME}" "ASAN_OPTIONS=detect_leaks=0")
    list(APPEND WGK_PYTHON_ENV ${WGK_PYTHON_SANITIZER_ENV})
  endif()
  # No case may skip (pytest's summary would say "N skipped"): a skipped case is a case that checked nothing.
  add_test(NAME python_binding COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "[1-9][0-9]* passed"
           --reject "skipped|xfail|xpass" --
           ${WGK_PYTHON3} -m pytest -q -p no:cacheprovider -rs ${CMAKE_CURRENT_LIST_DIR}/test_wgk.py
           ${CMAKE_CURRENT_LIST_DIR}/test_usability.py)
  set_tests_properties(python_binding PROPERTIES TIMEOUT 600 LABELS "gpu;python" ENVIRONMENT "${WGK_PYTHON_ENV}")
  # The float16 cases again with shader-f16 hidden: the packed-f16 variants, as on an adapter without the feature
  # (they skipped there before, and passed).
  add_test(NAME python_binding_f16packed COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli>
           --expect "[1-9][0-9]* passed, [0-9]+ deselected" --reject "skipped|xfail|xpass" --
           ${WGK_PYTHON3} -m pytest -q -p no:cacheprovider -rs -k float16 ${CMAKE_CURRENT_LIST_DIR}/test_wgk.py)
  set_tests_properties(python_binding_f16packed PROPERTIES TIMEOUT 600 LABELS "gpu;python" ENVIRONMENT
    "${WGK_PYTHON_ENV};WGK_DISABLE_FEATURES=shader-f16")
endif()
# The installed package finds its own prefix's library after the prefix is moved.
if(TARGET wgk_cli)
  add_test(NAME python_binding_installed COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli>
           --expect "RotaryEmbedding ok" -- ${CMAKE_CURRENT_LIST_DIR}/installed.sh ${CMAKE_BINARY_DIR}
           ${CMAKE_BINARY_DIR}/test-tmp/python_binding_installed/prefix)
  set_tests_properties(python_binding_installed PROPERTIES TIMEOUT 300 LABELS "gpu;python" RESOURCE_LOCK wgk_install)
  if(WGK_PYTHON_SANITIZER_ENV) # the installed copy is sanitized too in make test-asan (it failed there without)
    set_tests_properties(python_binding_installed PROPERTIES ENVIRONMENT "${WGK_PYTHON_SANITIZER_ENV}")
  endif()
endif()
# The wheel (make wheel), installed offline with pip --user into a scratch HOME and imported from another folder;
# make install's PYTHONPATH hint. cmake --install writes build/install_manifest.txt: one install at a time.
if(TARGET wgk_cli)
  add_test(NAME python_wheel COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "\nwheel ok" --
           ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/wheel_test.py ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
  set_tests_properties(python_wheel PROPERTIES TIMEOUT 300 LABELS "gpu;python" RESOURCE_LOCK wgk_install)
  if(WGK_PYTHON_SANITIZER_ENV)
    set_tests_properties(python_wheel PROPERTIES ENVIRONMENT "${WGK_PYTHON_SANITIZER_ENV}")
  endif()
endif()
