// kernel-contract: this project's served kernels and controls (kc_entries) with kc_main's main().
namespace kc::detail { extern int entries_anchor; }
int kc_entries_linked() { return kc::detail::entries_anchor; }
