# scripts/bootstrap.sh (issue 35 item 1): with everything present it needs no root, runs no sudo and changes
# nothing, as an ordinary user (made with useradd when ctest runs as root); with packages missing it prints its
# plan (what, and why) before its first sudo, and --dry-run changes nothing.
add_test(NAME bootstrap_no_root COMMAND ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/bootstrap_test.py ${CMAKE_SOURCE_DIR})
set_tests_properties(bootstrap_no_root PROPERTIES TIMEOUT 120 LABELS "setup;slow")
