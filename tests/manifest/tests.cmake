wgk_add_test(test_manifest SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_manifest.c ${CMAKE_CURRENT_LIST_DIR}/test_golden.c
             ${CMAKE_CURRENT_LIST_DIR}/test_one_validator.c)
# Spec 2.1: golden explain/render outputs of a package that uses every key.
add_test(NAME manifest_spec21_golden COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/spec21/golden.sh $<TARGET_FILE:wgk_cli>)
set_tests_properties(manifest_spec21_golden PROPERTIES LABELS "plan")
# Spec 2.1 on the GPU: explicit destinations, scalar args into uniforms, the loader tools' Relu package.
find_program(WGK_SPEC21_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(WGK_SPEC21_PYTHON3)
  add_test(NAME manifest_spec21_run COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "ok: ai.onnx.Relu" --
           ${WGK_SPEC21_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/spec21/run_test.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(manifest_spec21_run PROPERTIES TIMEOUT 300 LABELS "gpu")
  # The public loader's storage rules: widened int8/int16/uint8/bool, packed uint8, opaque and narrowed int64,
  # int64 outputs stored as 32 bits, the opaque-int64 WGSL scan and the refusals, against numpy.
  add_test(NAME manifest_spec21_storage COMMAND ${WGK_SPEC21_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/spec21/storage_test.py
           $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(manifest_spec21_storage PROPERTIES TIMEOUT 300 LABELS "gpu")
endif()
# The same rules through the C API: chained int64 layouts, caller destinations, wgk_tensor_write, int16, packed.
wgk_add_test(test_storage_api SOURCES ${CMAKE_CURRENT_LIST_DIR}/spec21/test_storage_api.c TIMEOUT 120 LABELS gpu)
# The opaque-int64 WGSL scan, snippet by snippet, against the public loader's verdicts.
wgk_add_test(test_int64_scan SOURCES ${CMAKE_CURRENT_LIST_DIR}/spec21/test_int64_scan.c)
