# One source per package (kernels/<op id>/): generated files match their generators, digests match the files; no
# literal fold width in templates.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
# (`wgk pack --check` judges the digests: the one digest writer).
if(TARGET wgk_cli)
  add_test(NAME packages_generated_files COMMAND ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/generated_files.py
           ${CMAKE_SOURCE_DIR} $<TARGET_FILE:wgk_cli>)
  set_tests_properties(packages_generated_files PROPERTIES LABELS "lint")
endif()
# A package's C is one folder: a new src/ops/<op>/ with hook files is in the op table with no other edit.
add_test(NAME ops_new_folder_picked_up COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/ops_new_folder.py
         ${CMAKE_SOURCE_DIR} ${CMAKE_C_COMPILER} ${CMAKE_COMMAND})
set_tests_properties(ops_new_folder_picked_up PROPERTIES LABELS "lint")
