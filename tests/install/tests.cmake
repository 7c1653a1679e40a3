# The install (issue 16 items 1 and 2): installed into a temporary prefix, moved, run with no build or source
# path in the environment (wgk info, wgk list, the installed examples built with the moved wgk.pc); and a
# caller's device that lacks a feature its adapter has is named as the cause.
if(TARGET wgk_cli)
  set(sanitize)
  if(WGK_SANITIZE)
    set(sanitize --sanitize)
  endif()
  add_test(NAME install_move COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --
           ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/install_move_test.py ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR}
           ${sanitize})
  # cmake --install writes build/install_manifest.txt: one install at a time.
  set_tests_properties(install_move PROPERTIES TIMEOUT 600 LABELS "gpu;install;slow" RESOURCE_LOCK wgk_install)
endif()
wgk_add_test(test_caller_device SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_caller_device.c TIMEOUT 300 LABELS "gpu;install")
target_link_libraries(test_caller_device PRIVATE ${MATH_LIB})
