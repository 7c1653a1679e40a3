wgk_add_test(test_onnx SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_onnx.c ${CMAKE_CURRENT_LIST_DIR}/../npy/testkit.c TIMEOUT 300)
target_include_directories(test_onnx PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../npy)
