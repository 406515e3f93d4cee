# cmake -P: install r4d (component r4d) from BINARY_DIR into WORK_DIR/prefix, then configure, build
# and run kernels/r4d/example with find_package(r4d), and compile the same main.cpp with the flags
# pkg-config gives for r4d.pc.
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_out "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install "${BINARY_DIR}" --prefix "${prefix}" --component r4d)
foreach(f include/r4d/r4d.hpp lib/libr4d.a lib/cmake/r4d/r4dConfig.cmake lib/pkgconfig/r4d.pc)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()

run(${CMAKE_COMMAND} -S "${EXAMPLE_DIR}" -B "${WORK_DIR}/example" -G "${GENERATOR}"
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX})
run(${CMAKE_COMMAND} --build "${WORK_DIR}/example")
run("${WORK_DIR}/example/r4d_example")
message(STATUS "example (find_package):\n${last_out}")
if(NOT last_out MATCHES "select")
  message(FATAL_ERROR "example printed no select line")
endif()

find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig")
  run(${PKG_CONFIG} --cflags --libs r4d)
  string(STRIP "${last_out}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run(${CXX} -std=c++20 "${EXAMPLE_DIR}/main.cpp" ${flags} -o "${WORK_DIR}/example_pc")
  run("${WORK_DIR}/example_pc")
  message(STATUS "example (pkg-config) ran")
else()
  message(STATUS "pkg-config not found: r4d.pc not exercised")
endif()
