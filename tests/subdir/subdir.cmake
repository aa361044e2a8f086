# cmake -P script: configure tests/subdir/parent (the harness by add_subdirectory, CPU only, its own
# tests off), build the example's contract alone, run it and check ctest lists its entry. Unoptimized
# (-O0): the wiring is under test, not speed, and the harness's hundred units build in two thirds of
# Release's time.
if(NOT KEEP)
  file(REMOVE_RECURSE ${WORK_DIR})
endif()
include(${CMAKE_CURRENT_LIST_DIR}/../cmake_steps.cmake)
step(${CMAKE_COMMAND} -S ${PARENT_DIR} -B ${WORK_DIR} -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DKC_TREE=${TREE}
     -DKC_CUDA=OFF -DBUILD_TESTING=OFF)
step(${CMAKE_COMMAND} --build ${WORK_DIR} --target outside_contract)
step(${WORK_DIR}/outside/outside_contract --backend cpu --no-limits)
message("${last_out}")
if(NOT last_out MATCHES "SUMMARY backend=cpu kernels=1/1 known=0 controls=0/0 limit_problems=0 failures=0 errors=0")
  message(FATAL_ERROR "the example's contract did not pass:\n${last_out}")
endif()
execute_process(COMMAND ${CTEST} -N WORKING_DIRECTORY ${WORK_DIR} OUTPUT_VARIABLE listed)
if(NOT listed MATCHES "cpu/outside/row_sum4/f32")
  message(FATAL_ERROR "ctest -N lists no test for the entry:\n${listed}")
endif()
step(${CTEST} --output-on-failure WORKING_DIRECTORY ${WORK_DIR})
message("subdir ctest: ${last_out}")
