# ONNX Runtime (CPU) as a peer: random RotaryEmbedding cases through wgk onnx-test.
if(TARGET wgk_cli)
  foreach(seed 23 7)
    add_test(NAME ort_rotary_seed${seed}
      COMMAND ${CMAKE_CURRENT_LIST_DIR}/ort_rotary.sh $<TARGET_FILE:wgk_cli> ${CMAKE_BINARY_DIR}/ort-rotary-${seed} ${seed})
    set_tests_properties(ort_rotary_seed${seed} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
      PASS_REGULAR_EXPRESSION "10 passed, 0 failed, 0 skipped")
  endforeach()
endif()
