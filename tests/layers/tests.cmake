# The layer table in docs/contributing.md is the include rule between src/ folders.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME layers_include_edges COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_layers.py ${CMAKE_SOURCE_DIR})
# The checker itself must fail on an upward edge: a copy of the table with a tree holding one.
add_test(NAME layers_checker_refuses_upward_edge COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/upward_edge.py
  ${CMAKE_CURRENT_LIST_DIR}/check_layers.py ${CMAKE_SOURCE_DIR})
# Internal names carry their layer's prefix (docs/contributing.md's table); only include/wgk.h's names start with wgk_.
# One prefix per layer, also on every function or variable a src/ C file defines without static (issue 38 item 8).
add_test(NAME layers_internal_prefixes COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_prefixes.py ${CMAKE_SOURCE_DIR})
add_test(NAME layers_prefix_checker_refuses COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_prefixes.py --self-test)
# One error path: util_error in every layer, one out-of-memory helper, printing only in the CLI's printer.
add_test(NAME layers_one_error_path COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_error_paths.py ${CMAKE_SOURCE_DIR})
add_test(NAME layers_error_path_checker_refuses COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_error_paths.py --self-test)
set_tests_properties(layers_one_error_path layers_error_path_checker_refuses PROPERTIES LABELS lint)
set_tests_properties(layers_include_edges layers_checker_refuses_upward_edge layers_internal_prefixes
  layers_prefix_checker_refuses PROPERTIES LABELS "lint")
# No loops between the files of one folder: a file calls into another of its folder, never back (issue 38).
add_test(NAME layers_no_folder_loops COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_folder_loops.py ${CMAKE_SOURCE_DIR})
add_test(NAME layers_folder_loop_checker_refuses COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_folder_loops.py --self-test)
set_tests_properties(layers_no_folder_loops layers_folder_loop_checker_refuses PROPERTIES LABELS "lint")
# Function length: no function in src/ over 60 lines (issue 38 item 8; scripts/func-lengths.py lists them by length).
# (func-lengths.py --except FOLDER=LINES would hold a folder not yet split at its own longest; none needs it now.)
add_test(NAME lint_function_length COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/func-lengths.py --top 0
  --max 60 ${CMAKE_SOURCE_DIR}/src)
# The checker must fail, naming the function, when one passes the ceiling: the same tree against 40 lines (an
# exception for one folder leaves the others at the ceiling).
add_test(NAME lint_function_length_refuses COMMAND ${WGK_RUN_TEST} --status 1 --expect "is [0-9]+ lines, over the ceiling of 40"
  -- ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/func-lengths.py --top 0 --max 40 --except runtime=1000
  ${CMAKE_SOURCE_DIR}/src)
set_tests_properties(lint_function_length lint_function_length_refuses PROPERTIES LABELS "lint")
