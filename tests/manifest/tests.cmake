wgk_add_test(test_manifest SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_manifest.c ${CMAKE_CURRENT_LIST_DIR}/test_golden.c)
# Spec 2.1: golden explain/render outputs of a package that uses every key.
add_test(NAME manifest_spec21_golden COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/spec21/golden.sh $<TARGET_FILE:wgk_cli>)
