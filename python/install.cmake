# The Python binding: python/wgk installed as <prefix>/lib/python3/dist-packages/wgk (Debian's python3 path), with
# _install.py naming the library folder relative to the package, so a moved prefix still finds its libwgk.so.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(WGK_PYTHON_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(WGK_PYTHON_LIBDIR "../../../../${CMAKE_INSTALL_LIBDIR}") # from lib/python3/dist-packages/wgk to the prefix
endif()
file(WRITE "${CMAKE_BINARY_DIR}/python/wgk/_install.py"
     "# Written by CMake at configure time (python/install.cmake): where libwgk.so is, from this folder.\n"
     "LIBDIR = \"${WGK_PYTHON_LIBDIR}\"\n")
install(FILES "${CMAKE_SOURCE_DIR}/python/wgk/__init__.py" "${CMAKE_BINARY_DIR}/python/wgk/_install.py"
        DESTINATION lib/python3/dist-packages/wgk)
