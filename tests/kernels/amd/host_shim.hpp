// Compiles the AMD fragment-helper headers (kernels/amd/*.h) for the host: the names the vendor
// prelude (kernels/prelude.h) would give them, as plain host C++. R4_HOST_EMULATION keeps the
// helpers' device-only parts (instructions, cross-lane shuffles, loads) out.
#pragma once

#include <cstdint>
#include <cstring>

#include "quant/numeric.hpp"

#define R4_HOST_EMULATION 1
#define __device__
#define __host__

typedef unsigned int u32;
typedef int i32;
typedef unsigned short u16;
typedef unsigned long long u64;
typedef long long i64;
typedef signed char i8;

// f32 -> bf16 bits, round to nearest even: the device prelude's r4_f32_to_bf16.
inline u16 r4_f32_to_bf16(float f) { return r4::quant::f32_to_bf16_bits(f); }
