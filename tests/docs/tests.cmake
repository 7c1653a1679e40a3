# The docs' usage examples run as tests, read from the markdown at test time (tests/docs/doc_examples.py):
# README's first call (shell), C and Python snippets, each kernel card's C, Python, CLI and JavaScript examples,
# and a check that no usage block of a card or of the README goes untested.
if(TARGET wgk_cli)
  set(WGK_DOC_EXAMPLES ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/doc_examples.py ${CMAKE_SOURCE_DIR}
      $<TARGET_FILE:wgk_cli> $<TARGET_FILE:wgk> ${CMAKE_C_COMPILER})
  set(WGK_DOC_ENV "PYTHONDONTWRITEBYTECODE=1")
  if(WGK_SANITIZE) # the snippets link the sanitized libwgk; python3 needs the ASan runtime loaded first
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so OUTPUT_VARIABLE WGK_DOC_ASAN
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    list(APPEND WGK_DOC_ENV "WGK_DOC_CFLAGS=-fsanitize=address,undefined" "LD_PRELOAD=${WGK_DOC_ASAN}"
         "ASAN_OPTIONS=detect_leaks=0")
  endif()
  # README's examples, then every card's examples of each kind: the cards are the kernels/*/README.md found when
  # the test runs (no per-op list), the checks come from each package's own folder (tools/reference.py)
  foreach(case readme_c readme_python readme_cli "cards;c" "cards;python" "cards;cli" "cards;js")
    string(REPLACE ";" "_" name "docs_${case}")
    add_test(NAME ${name} COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "^ok: |\nok: " --
             ${WGK_DOC_EXAMPLES} ${case})
    set_tests_properties(${name} PROPERTIES TIMEOUT 300 LABELS "gpu;docs" ENVIRONMENT "${WGK_DOC_ENV}")
  endforeach()
  add_test(NAME docs_cover COMMAND ${WGK_RUN_TEST} --expect "ok: all [0-9]+ usage blocks are tested" --
           ${WGK_DOC_EXAMPLES} cover)
  set_tests_properties(docs_cover PROPERTIES TIMEOUT 60 LABELS "docs")
endif()

# docs/environment.md lists exactly the environment variables the code reads; getenv only in src/util/env.c
add_test(NAME docs_env_table COMMAND ${WGK_RUN_TEST} --expect "^ok: [0-9]+ variables" --
         ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/env_table_test.py ${CMAKE_SOURCE_DIR})
add_test(NAME docs_env_table_refuses COMMAND ${WGK_RUN_TEST} --expect "^ok: the check refuses" --
         ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/env_table_test.py --self-test)
set_tests_properties(docs_env_table docs_env_table_refuses PROPERTIES TIMEOUT 120 LABELS "docs;lint")

# docs/manifest.md lists exactly the keys of every key table of the manifest reader (src/manifest/*.c)
add_test(NAME docs_manifest_keys COMMAND ${WGK_RUN_TEST} --expect "^ok: [0-9]+ keys in [0-9]+ tables" --
         ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/manifest_keys_test.py ${CMAKE_SOURCE_DIR})
add_test(NAME docs_manifest_keys_refuses COMMAND ${WGK_RUN_TEST} --expect "^ok: the check refuses" --
         ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/manifest_keys_test.py --self-test)
set_tests_properties(docs_manifest_keys docs_manifest_keys_refuses PROPERTIES TIMEOUT 120 LABELS "docs;lint")

# docs/authoring.md builds its package from its own code blocks and ends in `wgk test` passing
if(TARGET wgk_cli)
  add_test(NAME docs_authoring COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "\nok: docs/authoring.md" --
           ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/authoring_test.py ${CMAKE_SOURCE_DIR} $<TARGET_FILE:wgk_cli>)
  set_tests_properties(docs_authoring PROPERTIES TIMEOUT 300 LABELS "gpu;docs")
endif()

# docs/loader-semantics.md's key table has a row for every key of docs/manifest.md (the loader against wgk)
add_test(NAME docs_loader_keys COMMAND ${WGK_RUN_TEST} --expect "^ok: [0-9]+ keys, each with a row" --
         ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/loader_keys_test.py ${CMAKE_SOURCE_DIR})
add_test(NAME docs_loader_keys_refuses COMMAND ${WGK_RUN_TEST} --expect "^ok: the check refuses" --
         ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/loader_keys_test.py --self-test)
set_tests_properties(docs_loader_keys docs_loader_keys_refuses PROPERTIES TIMEOUT 120 LABELS "docs;lint")

# every src/ path named by README.md, docs/ and the kernel cards exists (a moved file leaves no stale name)
add_test(NAME docs_source_paths COMMAND ${WGK_RUN_TEST} --expect "^ok: [0-9]+ source paths, each exists" --
         ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/source_paths_test.py ${CMAKE_SOURCE_DIR})
add_test(NAME docs_source_paths_refuses COMMAND ${WGK_RUN_TEST} --expect "^ok: the check refuses" --
         ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/source_paths_test.py --self-test)
set_tests_properties(docs_source_paths docs_source_paths_refuses PROPERTIES TIMEOUT 120 LABELS "docs;lint")
