// fmt's compiled part, built once here instead of in every translation unit.
//
// Why: Debian 12 ships fmt 9.1 only as a shared library (libfmt.so.9), which the H200 machine
// lacks, so the project used fmt header-only. Header-only makes <fmt/core.h> pull in format.h and
// format-inl.h everywhere: tuner/tune/spec.cpp compiled in 22.5 s that way and in 14.8 s without
// (2 cores, -O2 -g, 2026-12-02), and the CI run took 5,329 s of its 5,400 s limit. Compiling the
// non-inline definitions in this one file keeps the binaries self-contained (static) while every
// other file sees only the declarations.
//
// format-inl.h defines the functions as non-inline when FMT_HEADER_ONLY is not set; the templates
// that format.h declares `extern template` (or that callers use through declarations only) are
// instantiated explicitly below for char, the only character type r4tune formats.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;

template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;

template FMT_API void buffer<char>::append(const char*, const char*);

template FMT_API void vformat_to(buffer<char>&, string_view,
                                 basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);

}  // namespace detail
FMT_END_NAMESPACE
