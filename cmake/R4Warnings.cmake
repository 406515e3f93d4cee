# One interface target carrying the project's warning set; every first-party target links it.
add_library(r4_warnings INTERFACE)
target_compile_options(r4_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wconversion -Wshadow
    -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${R4_WERROR}>>:-Werror>)

# Sanitised host build (CI runs it): ASan + UBSan, no recovery so any report fails the test.
add_library(r4_sanitize INTERFACE)
if(R4_SANITIZE)
  target_compile_options(r4_sanitize INTERFACE -fsanitize=address,undefined
    -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(r4_sanitize INTERFACE -fsanitize=address,undefined)
  # GCC 12's -Wmaybe-uninitialized misfires on ASan-instrumented <regex> and std::function
  # internals (tuner/gpu/resource_report.cpp stopped the sanitised build); the plain build keeps
  # the warning, so real cases are still caught there.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(r4_sanitize INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-maybe-uninitialized>)
    # Likewise GCC 12's object-size warnings under ASan instrumentation: seen as
    # -Wstringop-overflow inside fmt/core.h (quant/safetensors.cpp, -O3) on 2026-11-30; the
    # plain build keeps them as errors.
    foreach(w stringop-overflow stringop-overread array-bounds restrict)
      target_compile_options(r4_sanitize INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-${w}>)
    endforeach()
  endif()
endif()

add_library(r4_common INTERFACE)
target_link_libraries(r4_common INTERFACE r4_warnings r4_sanitize)
target_include_directories(r4_common INTERFACE ${PROJECT_SOURCE_DIR})
