# Spec 2.1 packages written as a third party would (tests/spec21run/demo.*), run through `wgk run` on the GPU and
# compared with numpy in double precision; their bad calls refused (run_test.py says what each package covers).
# The plan-only checks below need no GPU: the regressions the packages found, one each.
if(TARGET wgk_cli)
  add_test(NAME spec21run_packages COMMAND ${WGK_RUN_TEST} --gpu $<TARGET_FILE:wgk_cli> --expect " passed, 0 failed"
           -- ${WGK_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/run_test.py $<TARGET_FILE:wgk_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(spec21run_packages PROPERTIES TIMEOUT 600 LABELS "gpu")
  set(WGK_S21_DEV "${CMAKE_SOURCE_DIR}/tests/plan/lavapipe.device.json")
  # An output's shape expression reads a manifest derive by bare name (it was "unknown name 'perm'").
  add_test(NAME spec21run_output_shape_derive COMMAND ${WGK_RUN_TEST} --expect "variant  rank2_32bit.*transposed \\(transposed\\): float32 \\[3, 2\\]"
           -- $<TARGET_FILE:wgk_cli> explain ${CMAKE_CURRENT_LIST_DIR}/demo.Transpose --device ${WGK_S21_DEV}
           --shape data=2x3 --attr perm=[1,0])
  # Two uniform bindings in one pass each get their own struct (the second overwrote the first).
  add_test(NAME spec21run_two_uniforms COMMAND ${WGK_RUN_TEST}
           --expect "uniform  range: lo=0 hi=4 bins=16 \\| part: start=0 count=256 last=2.*uniform  range: lo=0 hi=4 bins=16 \\| total: n=700"
           -- $<TARGET_FILE:wgk_cli> explain ${CMAKE_CURRENT_LIST_DIR}/demo.Histogram --device ${WGK_S21_DEV}
           --shape values=7x100 --arg hi=4)
  # Two uniform structs of one name with different fields in one pass are refused, not declared once.
  add_test(NAME spec21run_conflicting_structs COMMAND ${WGK_RUN_TEST} --status 1
           --expect "bindings\\[3\\]: pass axpb: uniform struct Params is declared with conflicting schemas by bindings scale and shift"
           -- $<TARGET_FILE:wgk_cli> explain ${CMAKE_CURRENT_LIST_DIR}/bad.SameStructName --device ${WGK_S21_DEV} --shape x=5)
  set_tests_properties(spec21run_output_shape_derive spec21run_two_uniforms spec21run_conflicting_structs
    PROPERTIES LABELS "plan")
endif()
# requires.subgroupMatrixConfigs is checked against the device's list even when it is empty (lavapipe's): the
# loader rejects the variant there (docs/loader-semantics.md rule 37); wgk accepted it when the device lacked the
# subgroup-matrix feature.
if(TARGET wgk_cli)
  add_test(NAME spec21run_subgroup_matrix_configs COMMAND ${WGK_RUN_TEST}
           --expect "matrix: requires adapterInfo.subgroupMatrixConfigs to match one of \\[f32-f32-8x8x8\\] \\(device reports \\[\\]\\)"
           -- $<TARGET_FILE:wgk_cli> explain ${CMAKE_CURRENT_LIST_DIR}/ai.onnx.MatMul --device ${CMAKE_SOURCE_DIR}/tests/plan/lavapipe.device.json
           --shape A=16x32 --shape B=32x8)
  set_tests_properties(spec21run_subgroup_matrix_configs PROPERTIES LABELS "plan")
endif()
# A fixed-length binding (`length`) bound to a tensor shorter than length x element is refused on the host before
# anything is recorded, naming the binding, as the loader refuses it when binding (docs/loader-semantics.md rule 39;
# it was left to Dawn's validation at submit). A longer tensor is fine.
if(TARGET wgk_cli)
  add_test(NAME spec21run_fixed_length_short COMMAND ${WGK_RUN_TEST} --status 1
           --expect "bindings\\[1\\]: pass eval: binding coef: port coef \\(float32 \\[3\\]\\) provides 12 bytes, but the declared fixed length \\$NCOEF = 4 of f32 requires 16"
           -- $<TARGET_FILE:wgk_cli> explain ${CMAKE_CURRENT_LIST_DIR}/demo.Polynomial --device ${CMAKE_SOURCE_DIR}/tests/plan/lavapipe.device.json
           --shape x=100 --shape coef=3)
  add_test(NAME spec21run_fixed_length_longer COMMAND ${WGK_RUN_TEST} --expect "variant  horner"
           -- $<TARGET_FILE:wgk_cli> explain ${CMAKE_CURRENT_LIST_DIR}/demo.Polynomial --device ${CMAKE_SOURCE_DIR}/tests/plan/lavapipe.device.json
           --shape x=100 --shape coef=6 --attr degree=2)
  set_tests_properties(spec21run_fixed_length_short spec21run_fixed_length_longer PROPERTIES LABELS "plan")
endif()
# Subgroup requirements (ai.onnx.ReduceMax): on lavapipe's subgroups of 8 the 64-lane variant is rejected with the
# device's size; without the subgroups feature every variant is, and the call is refused naming the feature.
if(TARGET wgk_cli)
  add_test(NAME spec21run_subgroup_min_size COMMAND ${WGK_RUN_TEST}
           --expect "variant  subgroup\nrejected\n  wave64: requires adapterInfo\\.subgroupMinSize >= 64 \\(the device has 8\\)"
           -- $<TARGET_FILE:wgk_cli> explain ${CMAKE_CURRENT_LIST_DIR}/ai.onnx.ReduceMax
           --device ${CMAKE_CURRENT_LIST_DIR}/lavapipe-sg8.device.json --shape data=5x100)
  add_test(NAME spec21run_subgroups_missing COMMAND ${WGK_RUN_TEST} --status 1
           --expect "no variant of ai\\.onnx\\.ReduceMax accepts the call \\(all 2 variants\\): requires device\\.features\\.has\\(\"subgroups\"\\) \\(the device does not have it\\)"
           -- $<TARGET_FILE:wgk_cli> explain ${CMAKE_CURRENT_LIST_DIR}/ai.onnx.ReduceMax
           --device ${CMAKE_CURRENT_LIST_DIR}/nosubgroups.device.json --shape data=5x100)
  set_tests_properties(spec21run_subgroup_min_size spec21run_subgroups_missing PROPERTIES LABELS "plan")
endif()
