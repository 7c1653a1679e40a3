# The Hub client (src/hub): unit tests without a network, the C API and the CLI against a stand-in Hub on
# 127.0.0.1 (tests/hub/standin.py). Every test sets its own HF_HOME / HF_HUB_CACHE; nothing goes beyond 127.0.0.1.
wgk_add_test(test_hub_unit SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hub_unit.c)
find_program(WGK_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(WGK_PYTHON3)
  add_executable(test_hub_api ${CMAKE_CURRENT_LIST_DIR}/test_hub_api.c)
  target_include_directories(test_hub_api PRIVATE "${CMAKE_SOURCE_DIR}/src" "${CMAKE_SOURCE_DIR}/tests" "${WGK_PROTO_OUT}")
  target_link_libraries(test_hub_api PRIVATE wgk_test_support wgk_tools ${CMOCKA_LIB}) # skip() exits 77
  set_target_properties(test_hub_api PROPERTIES BUILD_RPATH "${WGK_DAWN_DIR}")
  add_test(NAME test_hub_api COMMAND ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/standin.py
           --repo "webgpu-kernels/ai.onnx.RotaryEmbedding=${CMAKE_SOURCE_DIR}/kernels/ai.onnx.RotaryEmbedding"
           -- $<TARGET_FILE:test_hub_api>)
  set_tests_properties(test_hub_api PROPERTIES TIMEOUT 300 LABELS "gpu" SKIP_RETURN_CODE 77 ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout")
  # The one version rule (no version: the newest on this machine; wgk download: the Hub's newest) through pkg_open
  # and hub_snapshot, against the stand-in serving branches v1 and v2 (v2 a copy the test makes in its WGK_TEST_TMP).
  add_executable(test_hub_version ${CMAKE_CURRENT_LIST_DIR}/test_hub_version.c)
  target_include_directories(test_hub_version PRIVATE "${CMAKE_SOURCE_DIR}/src" "${CMAKE_SOURCE_DIR}/tests")
  target_link_libraries(test_hub_version PRIVATE wgk_test_support wgk_tools ${CMOCKA_LIB})
  set_target_properties(test_hub_version PROPERTIES BUILD_RPATH "${WGK_DAWN_DIR}")
  add_test(NAME test_hub_version COMMAND ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/standin.py
           --repo "webgpu-kernels/ai.onnx.RotaryEmbedding=${CMAKE_SOURCE_DIR}/kernels/ai.onnx.RotaryEmbedding"
           --repo "webgpu-kernels/ai.onnx.RotaryEmbedding@v2=${CMAKE_BINARY_DIR}/test-tmp/test_hub_version/v2"
           -- $<TARGET_FILE:test_hub_version>)
  set_tests_properties(test_hub_version PROPERTIES TIMEOUT 120 LABELS "unit" ENVIRONMENT
                       "CMOCKA_MESSAGE_OUTPUT=stdout;WGK_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
  if(TARGET wgk_cli)
    # The same rule through the CLI (info, download, lock; host only), bundled copy and offline included.
    add_test(NAME hub_version_cli COMMAND ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/version_rule_test.py
             $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
    set_tests_properties(hub_version_cli PROPERTIES TIMEOUT 300 LABELS "unit")
    add_test(NAME hub_cli COMMAND ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/hub_test.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
    set_tests_properties(hub_cli PROPERTIES TIMEOUT 600 LABELS "gpu;slow")
    # huggingface_hub over a cache wgk filled and wgk over one it filled; skipped (77, with the reason) where
    # huggingface_hub cannot be imported
    add_test(NAME hub_hf_interop COMMAND ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/hf_interop_test.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
    set_tests_properties(hub_hf_interop PROPERTIES TIMEOUT 300 LABELS "unit;optional" SKIP_RETURN_CODE 77)
  endif()
endif()
