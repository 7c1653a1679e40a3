# ONNX Runtime (CPU) as a peer: random RotaryEmbedding cases through wgk onnx-test.
if(TARGET wgk_cli)
  foreach(seed 23 7)
    add_test(NAME ort_rotary_seed${seed}
      COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "10 passed, 0 failed, 0 skipped" --
              ${CMAKE_CURRENT_LIST_DIR}/ort_rotary.sh $<TARGET_FILE:wgk_cli> ${CMAKE_BINARY_DIR}/ort-rotary-${seed} ${seed})
    set_tests_properties(ort_rotary_seed${seed} PROPERTIES TIMEOUT 300 LABELS "gpu;peer;slow")
  endforeach()
endif()
