# cmake -DBUILD_DIR=<build> -P build_noop.cmake: `cmake --build` of a build that is up to date runs no
# compile, link or custom command. Ninja's own glob check ("Re-checking globbed directories", a CMake
# step that reads directories and writes nothing when they are unchanged) is the one line allowed.
# The suite runs after scripts/test's build, so the build here must find nothing to do: a step that
# runs again on every build (an output a command never writes, a file it always touches) fails here,
# named in the output.
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --build ${BUILD_DIR} failed (${rc}):\n${out}\n${err}")
endif()
string(REGEX MATCHALL "\\[[0-9]+/[0-9]+\\] [^\n]*" steps "${out}")
list(FILTER steps EXCLUDE REGEX "Re-checking globbed directories")
if(steps OR NOT out MATCHES "ninja: no work to do")
  list(JOIN steps "\n  " ran)
  message(FATAL_ERROR "a build with nothing changed ran steps (each runs on every build):\n  ${ran}\n${out}")
endif()
message(STATUS "cmake --build: no work to do")
