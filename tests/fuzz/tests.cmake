# Corpus replay: every fuzz target's committed corpus (fuzz/corpus/<name>, target fuzz_<name>) fed through its
# LLVMFuzzerTestOneInput by fuzz/replay.c, built with the normal compiler and without libFuzzer, so the seeds
# and every reproducer of a fixed finding run in `make test` (and under sanitizers in `make test-asan`).
set(WGK_FUZZ_DIR "${CMAKE_SOURCE_DIR}/fuzz")
foreach(name expr template manifest npy onnx_tensor onnx_model metadata testcase)
  set(exe fuzz_replay_${name})
  add_executable(${exe} ${WGK_FUZZ_DIR}/replay.c ${WGK_FUZZ_DIR}/fuzz_${name}.c)
  target_include_directories(${exe} PRIVATE "${CMAKE_SOURCE_DIR}/src" "${WGK_PROTO_OUT}")
  target_compile_definitions(${exe} PRIVATE WGK_FUZZ_KERNEL_DIR="${CMAKE_SOURCE_DIR}/kernels")
  target_link_libraries(${exe} PRIVATE wgk_tools)
  set_target_properties(${exe} PROPERTIES BUILD_RPATH "${WGK_DAWN_DIR}")
  add_test(NAME ${exe} COMMAND ${exe} "${WGK_FUZZ_DIR}/corpus/${name}")
  set_tests_properties(${exe} PROPERTIES TIMEOUT 300 LABELS fuzz)
endforeach()
