# cmake -DPYTHON=<python3> -DSCRIPT=<scripts/resource-spec> -DKC=<kernel-contract> -DDIR=<dir> -P resource_spec_test.cmake
set(two "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5fd4c5b6-0a1b-2c3d-4e5f-60718293a4b5)
GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-9e8d7c6b-0a1b-2c3d-4e5f-60718293a4b5)
")
set(mig "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5fd4c5b6-0a1b-2c3d-4e5f-60718293a4b5)
  MIG 3g.20gb     Device  0: (UUID: MIG-1a2b3c4d-0a1b-2c3d-4e5f-60718293a4b5)
")
file(WRITE ${DIR}/two.txt "${two}")
file(WRITE ${DIR}/mig.txt "${mig}")
file(WRITE ${DIR}/junk.txt "no GPUs here\n")

# run(<rc> <stderr-part> [VAR=value...] -- args...): the script's exit code and a part of what it says.
function(run want_rc want_err)
  cmake_parse_arguments(PARSE_ARGV 2 R "" "" "ENV;ARGS")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=CUDA_VISIBLE_DEVICES ${R_ENV} ${PYTHON} ${SCRIPT} ${R_ARGS}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL want_rc OR NOT err MATCHES "${want_err}")
    message(FATAL_ERROR "resource-spec ${R_ENV} ${R_ARGS}: exit ${rc} (want ${want_rc}), said:\n${err}\n(want: ${want_err})")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

# ids: each GPU's position; want: "id:slots" each.
function(expect_spec file want)
  file(READ ${file} json)
  string(JSON major GET "${json}" version major)
  string(JSON n LENGTH "${json}" local 0 gpus)
  set(got)
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON id GET "${json}" local 0 gpus ${i} id)
    string(JSON slots GET "${json}" local 0 gpus ${i} slots)
    list(APPEND got "${id}:${slots}")
  endforeach()
  if(NOT major EQUAL 1 OR NOT got STREQUAL want)
    message(FATAL_ERROR "${file}: version ${major}, gpus ${got}; want 1, ${want}:\n${json}")
  endif()
endfunction()

run(0 "2 GPUs from .*two.txt: id 0 = device 0, id 1 = device 1" ARGS --listing ${DIR}/two.txt ${DIR}/two.json)
expect_spec(${DIR}/two.json "0:1;1:1")
run(0 "" ARGS --listing ${DIR}/two.txt --slots 2 ${DIR}/slots.json)
expect_spec(${DIR}/slots.json "0:2;1:2")
# CUDA_VISIBLE_DEVICES names the GPUs (MIG instances too), and no listing is read.
run(0 "id 0 = device 3, id 1 = device MIG-1a2b" ENV CUDA_VISIBLE_DEVICES=3,MIG-1a2b ARGS --listing ${DIR}/junk.txt ${DIR}/vis.json)
expect_spec(${DIR}/vis.json "0:1;1:1")
run(1 "names no GPU" ENV CUDA_VISIBLE_DEVICES= ARGS ${DIR}/none.json)
run(1 "names no GPU" ENV CUDA_VISIBLE_DEVICES=-1 ARGS ${DIR}/none.json)
if(EXISTS ${DIR}/none.json)
  message(FATAL_ERROR "a spec was written with no GPU in it")
endif()
run(2 "GPU 0 is split into MIG instances: set CUDA_VISIBLE_DEVICES to the instances' UUIDs \\(MIG-1a2b" ARGS --listing ${DIR}/mig.txt)
run(2 "line 1 is neither a GPU nor a MIG instance" ARGS --listing ${DIR}/junk.txt)
run(2 "at least 1" ARGS --listing ${DIR}/two.txt --slots 0)

# kernel-contract given GPU id 1 of a spec written under CUDA_VISIBLE_DEVICES=4,7 runs on device 7.
execute_process(COMMAND ${CMAKE_COMMAND} -E env CTEST_RESOURCE_GROUP_COUNT=1 CTEST_RESOURCE_GROUP_0=gpus
                        CTEST_RESOURCE_GROUP_0_GPUS=id:1,slots:1 CUDA_VISIBLE_DEVICES=4,7
                        ${KC} --list --backend cpu --only rows/softmax
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err MATCHES "CTest allotted GPU id 1: CUDA_VISIBLE_DEVICES=7")
  message(FATAL_ERROR "kernel-contract under CTest's GPU 1 (exit ${rc}):\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env CTEST_RESOURCE_GROUP_COUNT=1 CTEST_RESOURCE_GROUP_0=gpus
                        CTEST_RESOURCE_GROUP_0_GPUS=id:2,slots:1 CUDA_VISIBLE_DEVICES=4,7
                        ${KC} --list --backend cpu --only rows/softmax
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "CTest allotted GPU 2, but CUDA_VISIBLE_DEVICES='4,7' lists 2 devices")
  message(FATAL_ERROR "kernel-contract under CTest's GPU 2 of 2 (exit ${rc}, want 2):\n${err}")
endif()
message(STATUS "resource-spec: every case as expected")
