# Run at every build (cmake -P): writes OUT with the commit the sources are at, "+ changes" when the work tree
# differs from it. The file is rewritten only when its text changes, so an unchanged tree recompiles nothing.
execute_process(COMMAND git -C "${SRC}" rev-parse --short=12 HEAD OUTPUT_VARIABLE commit
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT commit)
  set(commit "unknown (not a git checkout)")
else()
  execute_process(COMMAND git -C "${SRC}" diff --quiet HEAD -- RESULT_VARIABLE changed ERROR_QUIET)
  if(changed)
    string(APPEND commit " + uncommitted changes")
  endif()
endif()
file(WRITE "${OUT}.new" "#define WGK_SOURCE_COMMIT \"${commit}\"\n")
file(COPY_FILE "${OUT}.new" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.new")
