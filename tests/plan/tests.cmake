# Planning as text: `wgk explain` / `wgk render` on the shipped RotaryEmbedding package and described devices
# (no GPU is touched). Each case checks the chosen variant or the reasons given for rejections.
set(WGK_ROPE "${CMAKE_SOURCE_DIR}/kernels/ai.onnx.RotaryEmbedding")
set(WGK_LAVA "${CMAKE_CURRENT_LIST_DIR}/lavapipe.device.json")
set(WGK_NOF16 "${CMAKE_CURRENT_LIST_DIR}/nof16.device.json")
function(wgk_plan_test name regex)
  add_test(NAME plan_${name} COMMAND $<TARGET_FILE:wgk_cli> ${ARGN})
  set_tests_properties(plan_${name} PROPERTIES PASS_REGULAR_EXPRESSION "${regex}")
endfunction()
wgk_plan_test(rank4_pos "variant  rank4_cache2_pos"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --shape X=2x4x3x8 --shape cos_cache=50x4 --shape sin_cache=50x4 --shape position_ids=2x3)
wgk_plan_test(rank3_cache3 "variant  rank3_cache3"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --shape X=2x3x32 --shape cos_cache=2x3x4 --shape sin_cache=2x3x4 --attr num_heads=4)
wgk_plan_test(rank5_lists_all "rank3_cache2_pos: rank3PosContract is false: ranks.x == 3 is false \\(ranks.x = 5, 3\\).*rank4_cache2_pos: rank4PosContract is false.*rank3_cache3: rank3Contract is false: ranks.x == 3 is false.*rank4_cache3: rank4Contract is false: ranks.x == 4 is false \\(ranks.x = 5, 4\\)"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --shape X=2x4x3x8x1 --shape cos_cache=2x3x4 --shape sin_cache=2x3x4)
wgk_plan_test(f16_needs_feature "float16 needs the shader-f16 feature, which described GPU without shader-f16 \\[nvidia, vulkan\\] does not have.*rank4Contract is false: f16Ok\\(dtypes.T\\) is false"
  explain ${WGK_ROPE} --device ${WGK_NOF16} --dtype T=float16 --shape X=2x4x3x8 --shape cos_cache=2x3x4 --shape sin_cache=2x3x4)
wgk_plan_test(json "\"variant\": \"rank4_cache3\".*\"workgroups\": \\[[^]]*1,[^]]*1,[^]]*1[^]]*\\]"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --json --shape X=2x4x3x8 --shape cos_cache=2x3x4 --shape sin_cache=2x3x4)
# 4 x 32 x 4200 x 128 / 2 pairs / 256 = 134400 workgroups: folded to 65535 x 3.
wgk_plan_test(dispatch_fold "dispatch 65535 x 3 x 1"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --shape X=4x32x4200x128 --shape cos_cache=4x4200x64 --shape sin_cache=4x4200x64)
wgk_plan_test(uniform_values "uniform  pairCount=96(\\.0)? numHeads=4 sequenceLength=3 headSize=8 rotaryDim=8 halfRotaryDim=4 cacheBatchStride=12"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --shape X=2x4x3x8 --shape cos_cache=2x3x4 --shape sin_cache=2x3x4)
wgk_plan_test(render_f16 "^enable f16;.*var<storage, read> position_ids: array<u32>;.*array<f16>"
  render ${WGK_ROPE} --device ${WGK_LAVA} --dtype T=float16 --shape X=2x4x3x8 --shape cos_cache=50x4 --shape sin_cache=50x4 --shape position_ids=2x3)
wgk_plan_test(attr_constraint "attribute interleaved: value 2 is not one of \\[0, 1\\]"
  explain ${WGK_ROPE} --device ${WGK_LAVA} --attr interleaved=2 --shape X=2x4x3x8 --shape cos_cache=2x3x4 --shape sin_cache=2x3x4)
