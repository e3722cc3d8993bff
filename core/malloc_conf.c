/* jemalloc's compiled-in options. lg_extent_max_active_fit:8 lets jemalloc reuse freed extents up to
   256x larger than a request, so the memory of freed two-level hash tables is reused instead of
   mapped again. Linked directly into every executable: inside a static library the linker would
   drop this symbol silently. */
const char* malloc_conf = "lg_extent_max_active_fit:8";
