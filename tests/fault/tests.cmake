# Fault injection: allocation failures (every allocation of wgk's own code in turn) and device loss.
# The allocation loop wraps malloc & co. of the objects linked into its executable (wgk's static archive and the
# test), not of the shared libraries (Dawn, Mesa, libc itself); jansson goes through json_set_alloc_funcs and its
# parse calls are wrapped whole (fault_alloc.h says why).
set(WGK_FAULT_ENV
  "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan.supp:print_suppressions=0"
  "WGK_TUNING_CACHE=${CMAKE_BINARY_DIR}/fault-no-tuning-cache.json")

wgk_add_test(test_fault_alloc SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fault_alloc.c ${CMAKE_CURRENT_LIST_DIR}/fault_alloc.c
             TIMEOUT 900 LABELS "gpu;fault;slow")
target_link_options(test_fault_alloc PRIVATE
  "LINKER:--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=strndup"
  "LINKER:--wrap=json_loadb,--wrap=json_loads,--wrap=json_loadf,--wrap=json_load_file")
set_target_properties(test_fault_alloc PROPERTIES ENABLE_EXPORTS ON) # function names in WGK_FAULT_TRACE stacks
# test_fault_alloc itself: context creation and RotaryEmbedding (~1,700 rounds). SparseAttention (~7,300 rounds, each
# a fresh context; the later rounds compile pipelines) in five ranges that ctest -j runs side by side; the last range
# runs to the end, however long (every round in the plain build, every 25th under the sanitizers: each of its ~500
# rounds compiles pipelines on lavapipe, 0.5 s plain and over 10 s under ASan).
set_property(TEST test_fault_alloc APPEND PROPERTY ENVIRONMENT ${WGK_FAULT_ENV} "WGK_FAULT_SKIP=sparse_attention")
set_tests_properties(test_fault_alloc PROPERTIES SKIP_RETURN_CODE 77)
foreach(range "1 3000" "3001 5500" "5501 6300" "6301 6800" "6801 -1")
  separate_arguments(range)
  list(GET range 0 first)
  list(GET range 1 last)
  add_test(NAME test_fault_alloc_sparse_${first} COMMAND test_fault_alloc)
  set(step 1)
  if(WGK_SANITIZE AND last EQUAL -1) # past 6800 every round compiles pipelines: over 85 min under ASan; sample
    set(step 25)
  endif()
  set_tests_properties(test_fault_alloc_sparse_${first} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800 LABELS "gpu;fault;slow"
    ENVIRONMENT "WGK_SOURCE_DIR=${CMAKE_SOURCE_DIR};CMOCKA_MESSAGE_OUTPUT=stdout;${WGK_FAULT_ENV};WGK_FAULT_ONLY=sparse_attention;WGK_FAULT_FIRST=${first};WGK_FAULT_LAST=${last};WGK_FAULT_STEP=${step}")
endforeach()

wgk_add_test(test_device_loss SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_device_loss.c TIMEOUT 300 LABELS "gpu;fault")
set_property(TEST test_device_loss APPEND PROPERTY ENVIRONMENT ${WGK_FAULT_ENV})
set_tests_properties(test_device_loss PROPERTIES SKIP_RETURN_CODE 77)

# The spec 2.1 paths the shipped packages do not take (families, repeat groups, requires, supersededBy,
# demoteWhen, includes ...): test.EveryKey opened and planned, every allocation failed in turn; no GPU.
wgk_add_test(test_fault_spec21 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fault_spec21.c ${CMAKE_CURRENT_LIST_DIR}/fault_alloc.c
             TIMEOUT 600 LABELS "fault")
target_link_options(test_fault_spec21 PRIVATE
  "LINKER:--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=strndup"
  "LINKER:--wrap=json_loadb,--wrap=json_loads,--wrap=json_loadf,--wrap=json_load_file")
set_target_properties(test_fault_spec21 PROPERTIES ENABLE_EXPORTS ON)
set_property(TEST test_fault_spec21 APPEND PROPERTY ENVIRONMENT ${WGK_FAULT_ENV})
