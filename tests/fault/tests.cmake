# Fault injection: allocation failures (every allocation of wgk's own code in turn) and device loss.
# The allocation loop wraps malloc & co. of the objects linked into its executable (wgk's static archive and the
# test), not of the shared libraries (Dawn, Mesa, libc itself); jansson goes through json_set_alloc_funcs.
wgk_add_test(test_fault_alloc SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fault_alloc.c ${CMAKE_CURRENT_LIST_DIR}/fault_alloc.c
             TIMEOUT 1500 LABELS gpu)
target_link_options(test_fault_alloc PRIVATE
  "LINKER:--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=strndup"
  "LINKER:--wrap=json_loadb,--wrap=json_loads,--wrap=json_loadf,--wrap=json_load_file")
set_property(TEST test_fault_alloc APPEND PROPERTY ENVIRONMENT
  "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan.supp:print_suppressions=0"
  "WGK_TUNING_CACHE=${CMAKE_BINARY_DIR}/fault-no-tuning-cache.json")
set_tests_properties(test_fault_alloc PROPERTIES SKIP_RETURN_CODE 77)
wgk_add_test(test_device_loss SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_device_loss.c TIMEOUT 300 LABELS gpu)
set_property(TEST test_device_loss APPEND PROPERTY ENVIRONMENT
  "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan.supp:print_suppressions=0"
  "WGK_TUNING_CACHE=${CMAKE_BINARY_DIR}/fault-no-tuning-cache.json")
set_tests_properties(test_device_loss PROPERTIES SKIP_RETURN_CODE 77)
set_target_properties(test_fault_alloc PROPERTIES ENABLE_EXPORTS ON) # function names in WGK_FAULT_TRACE stacks
