// Keeps kc_entries non-empty on a build where no backend adds entries.
namespace kc::detail { int entries_anchor = 0; }
