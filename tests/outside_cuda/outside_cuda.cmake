# cmake -P script: install the package, configure examples/outside_cuda against it, build, run its
# CPU twin, its offline gate 5 (rope_contract.limits) and check its entries are CTest tests.
file(REMOVE_RECURSE ${WORK_DIR})
include(${CMAKE_CURRENT_LIST_DIR}/../cmake_steps.cmake)
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G Ninja -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
     -DCMAKE_CUDA_COMPILER=${NVCC})
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
# No GPU here: the CPU twin runs; the CUDA entry and its control are counted not-run, never passed.
# Gate 5 runs on every backend (the exit code says none failed): CUDA's against the example's own
# records, the others with no launch of the example's to audit.
step(${WORK_DIR}/build/rope_contract)
message("${last_out}")
if(NOT last_out MATCHES "SUMMARY backend=cpu kernels=1/1 known=0 controls=0/0 limit_problems=0 failures=0 errors=0")
  message(FATAL_ERROR "the CPU twin did not pass:\n${last_out}")
endif()
if(NOT last_out MATCHES "SUMMARY backend=cuda kernels=(2/2|not-run\\(2\\)) known=0 controls=(1/1|0/0)")
  message(FATAL_ERROR "no CUDA SUMMARY line for the example's entry and control:\n${last_out}")
endif()
# Gate 5 offline: the binary's images (sm_80, sm_90a) against every served chip and its own records.
step(${CTEST} --output-on-failure -R "^rope_contract\\.limits$" WORKING_DIRECTORY ${WORK_DIR}/build)
if(NOT last_out MATCHES "1 tests passed|100% tests passed")
  message(FATAL_ERROR "rope_contract.limits did not run:\n${last_out}")
endif()
message("gate 5: ${last_out}")
execute_process(COMMAND ${CTEST} -N WORKING_DIRECTORY ${WORK_DIR}/build OUTPUT_VARIABLE listed)
foreach(t cpu/outside/rope/bf16 cuda/outside/rope/bf16 cuda/outside/rope/ctl_default_stream cuda/mine/row_sum/f32)
  if(NOT listed MATCHES "${t}")
    message(FATAL_ERROR "ctest -N lists no test ${t}:\n${listed}")
  endif()
endforeach()
