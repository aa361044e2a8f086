// fmt's compiled part, once for the whole library. Every other file includes <fmt/format.h> alone:
// header-only fmt (FMT_HEADER_ONLY) compiles this part into each of them again, about 3 s of each
// file's build. Debian ships fmt as a shared library only, and the binaries built here also run
// on machines without it (the GPU machine), so the part is compiled in here rather than linked.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
// The templates fmt/format.h declares `extern` when it is not header-only, at the one character
// type this project formats.
template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl(locale_ref) -> char;
template void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);
template locale_ref::locale_ref(const std::locale&);
template auto locale_ref::get<std::locale>() const -> std::locale;
}  // namespace detail
FMT_END_NAMESPACE
