# Dependencies, all from Debian 12 packages (scripts/setup.sh installs them).
# Static or header-only where the H200 machine (Ubuntu 24.04, no package registry) lacks the
# library: Boost.Program_options and SQLite link statically; fmt's compiled part is built here
# (cmake/fmt_library.cpp says why it is not header-only).
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
add_library(r4_fmt STATIC ${CMAKE_CURRENT_LIST_DIR}/fmt_library.cpp)
target_include_directories(r4_fmt SYSTEM PUBLIC
  $<TARGET_PROPERTY:fmt::fmt,INTERFACE_INCLUDE_DIRECTORIES>)
set_target_properties(r4_fmt PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_link_libraries(r4_fmt PRIVATE r4_sanitize)
find_package(nlohmann_json REQUIRED)
find_package(tomlplusplus QUIET)

set(Boost_USE_STATIC_LIBS ON)
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)

find_library(R4_SQLITE3_STATIC NAMES libsqlite3.a REQUIRED)
find_path(R4_SQLITE3_INCLUDE sqlite3.h REQUIRED)
add_library(r4_sqlite3 INTERFACE)
target_include_directories(r4_sqlite3 SYSTEM INTERFACE ${R4_SQLITE3_INCLUDE})
target_link_libraries(r4_sqlite3 INTERFACE ${R4_SQLITE3_STATIC} ${CMAKE_DL_LIBS} Threads::Threads m)

# CUDA headers only: the CUDA backend dlopens libcuda / libnvrtc, so nothing links against them.
set(R4_CUDA_HOME "$ENV{CUDA_HOME}")
if(NOT R4_CUDA_HOME)
  set(R4_CUDA_HOME /usr/local/cuda)
endif()
find_path(R4_CUDA_INCLUDE cuda.h PATHS ${R4_CUDA_HOME}/include NO_DEFAULT_PATH REQUIRED)

# HIP headers only (Debian's libamdhip64-dev), same reason.
find_path(R4_HIP_INCLUDE hip/hip_runtime_api.h PATHS /opt/rocm/include /usr/include)
if(R4_BUILD_HIP AND NOT R4_HIP_INCLUDE)
  message(WARNING "HIP headers not found: the HIP backend is not built")
  set(R4_BUILD_HIP OFF)
endif()

# MPI (Debian's Open MPI, libopenmpi-dev): its headers only. r4tune dlopens libmpi at run time,
# and only when an MPI launcher started it with several ranks, so the one binary still runs where
# no MPI is installed (the H200 machine). On by default where found (tuner/mpi/world.hpp).
find_package(MPI COMPONENTS C QUIET)
option(R4_MPI "Run `mpirun r4tune sweep` as one MPI program (needs Open MPI's headers)" ${MPI_C_FOUND})
if(R4_MPI)
  if(NOT MPI_C_FOUND)
    message(FATAL_ERROR "R4_MPI=ON but no MPI found: install libopenmpi-dev, or -DR4_MPI=OFF")
  endif()
  # The library's soname (libmpi.so.40), the name dlopen asks for at run time.
  get_filename_component(_r4_mpi_real "${MPI_mpi_LIBRARY}" REALPATH)
  get_filename_component(_r4_mpi_name "${_r4_mpi_real}" NAME)
  string(REGEX REPLACE "^(lib[a-z_]+\\.so\\.[0-9]+).*$" "\\1" R4_MPI_SONAME "${_r4_mpi_name}")
  message(STATUS "MPI: ${MPI_C_INCLUDE_DIRS}, loaded at run time as ${R4_MPI_SONAME}")
endif()

if(R4_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(R4_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
