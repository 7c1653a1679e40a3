# The install of the kernel packages: every folder <from>/<op id>/ holding build/webgpu/manifest.json, found when
# the install runs (no list of ops anywhere), is copied whole to <to>/<op id>/ (its card, build/webgpu and tools
# beside it; never a __pycache__). A folder that is no package is named and left out. CMakeLists.txt installs
# the checkout's kernels/ with it (component `kernels`); WGK_INSTALL_KERNELS_FROM, given to the install script
# (cmake -DWGK_INSTALL_KERNELS_FROM=DIR -DCMAKE_INSTALL_COMPONENT=kernels -P build/cmake_install.cmake), installs
# another kernels folder through the same rule: tests/packages/new_data_only.py does.
function(wgk_install_kernels from to)
  file(GLOB entries LIST_DIRECTORIES true "${from}/*")
  list(SORT entries)
  set(count 0)
  foreach(dir ${entries})
    if(NOT IS_DIRECTORY "${dir}")
      continue()
    endif()
    get_filename_component(op "${dir}" NAME)
    if(NOT EXISTS "${dir}/build/webgpu/manifest.json")
      message(STATUS "kernels: ${dir} is no package (no build/webgpu/manifest.json): not installed")
      continue()
    endif()
    file(INSTALL "${dir}" DESTINATION "${to}" PATTERN "__pycache__" EXCLUDE)
    math(EXPR count "${count} + 1")
  endforeach()
  message(STATUS "kernels: ${count} packages from ${from}")
endfunction()
