# ONNX Runtime (CPU) as a peer, one driver for every op (tests/ort/ort_peer.py): each kernels/<op id>/ with a
# tools/ort_cases.py is found when the test runs (no per-op registration), its random single-node models run
# through onnxruntime-node and `wgk onnx-test`. Two seeds; two shards each, taking every other op.
if(TARGET wgk_cli)
  foreach(seed 23 5)
    foreach(k 1 2)
      add_test(NAME ort_peer_seed${seed}_${k}of2
        COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect "\nort peer: [0-9]+ ops, 0 problems" --
                ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/ort_peer.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR}/kernels
                ${CMAKE_BINARY_DIR}/ort-peer-${seed}-${k} --seed ${seed} --shard ${k}/2)
      set_tests_properties(ort_peer_seed${seed}_${k}of2 PROPERTIES TIMEOUT 600 LABELS "gpu;peer;slow")
    endforeach()
  endforeach()
endif()
