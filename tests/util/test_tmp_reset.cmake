# ctest fixture run before any test: empties build/test-tmp and makes each test's folders (tests/CMakeLists.txt).
# cmake -DROOT=build/test-tmp -DLIST=file-of-relative-folders -P test_tmp_reset.cmake
file(REMOVE_RECURSE "${ROOT}")
file(STRINGS "${LIST}" dirs)
foreach(d ${dirs})
  file(MAKE_DIRECTORY "${ROOT}/${d}")
endforeach()
