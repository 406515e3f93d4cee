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
  # GCC 12 reports -Wmaybe-uninitialized inside std::regex and std::variant under ASan
  # (GCC bug 105562); a false positive, so it is no error in the sanitised build only.
  target_compile_options(r4_sanitize INTERFACE $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>)
endif()

add_library(r4_common INTERFACE)
target_link_libraries(r4_common INTERFACE r4_warnings r4_sanitize)
target_include_directories(r4_common INTERFACE ${PROJECT_SOURCE_DIR})
