# RotaryEmbedding: host checks; the package through the runtime (ONNX conformance, seed manifest, ORT peer).
wgk_add_test(test_rotary_check SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rotary_check.c TIMEOUT 60)
