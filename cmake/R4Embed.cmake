# r4_embed_sources(TARGET name FILES rel/path ... [NAMESPACE ns] [HEADER rel/header.hpp])
# Generates a C++ file holding each file's text (paths relative to the repository root), so a
# binary carries the kernel sources it compiles at run time: the one source of truth is still the
# file under kernels/ or quant/layout/, and the binary works wherever it is copied. The generated
# `ns::embedded_sources()` is declared in HEADER (default: r4::kernels, kernels/embedded_sources.hpp;
# the GPU layer embeds its own stand-in HIP prelude as r4::gpu, tuner/gpu/embedded_sources.hpp).
function(r4_embed_sources)
  cmake_parse_arguments(E "" "TARGET;NAMESPACE;HEADER" "FILES" ${ARGN})
  if(NOT E_NAMESPACE)
    set(E_NAMESPACE r4::kernels)
  endif()
  if(NOT E_HEADER)
    set(E_HEADER kernels/embedded_sources.hpp)
  endif()
  set(out ${PROJECT_BINARY_DIR}/generated/${E_TARGET}.cpp)
  set(abs_files)
  foreach(f ${E_FILES})
    list(APPEND abs_files ${PROJECT_SOURCE_DIR}/${f})
  endforeach()
  # The list travels as one argument: its semicolons are escaped so the shell does not split it.
  string(REPLACE ";" "$<SEMICOLON>" files_arg "${E_FILES}")
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DROOT=${PROJECT_SOURCE_DIR} "-DFILES=${files_arg}"
            -DNS=${E_NAMESPACE} -DHEADER=${E_HEADER}
            -P ${PROJECT_SOURCE_DIR}/cmake/R4EmbedRun.cmake
    DEPENDS ${abs_files} ${PROJECT_SOURCE_DIR}/cmake/R4EmbedRun.cmake
    COMMENT "Embedding kernel sources into ${E_TARGET}" VERBATIM)
  add_library(${E_TARGET} STATIC ${out})
  target_link_libraries(${E_TARGET} PUBLIC r4_common)
endfunction()
