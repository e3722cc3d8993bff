/* jemalloc's compiled-in options. Linked directly into every executable: inside a static library
   the linker would drop this symbol silently.
   - lg_extent_max_active_fit:8 lets jemalloc reuse freed extents up to 256x larger than a request,
     so the memory of freed two-level hash tables is reused instead of mapped again.
   - oversize_threshold:0 (as ClickHouse configures it) keeps allocations of 8 MiB and more in the
     ordinary arenas: by default they go to a dedicated arena that purges freed pages at once, so
     every query's big hash tables, key columns and blocks were faulted in and zeroed by the kernel
     again (clear_page was ~30% of a worker's samples on a two-key high-cardinality GROUP BY;
     minor faults per run fell from ~470k to ~280k). Freed pages now follow the dirty decay.
   - background_thread:true purges on jemalloc's own threads. Decay is otherwise only applied when
     a thread allocates or frees, so an idle server kept the pages of its last big query: 0.8 to
     1.3 GB per process 20 s after a 30M-group GROUP BY, which now return to the OS within about
     the decay time. dirty_decay_ms:30000: with the default 10 s the background threads purged
     part of a query's freed pages before the next query reused them (ClickBench at 1M rows, 2
     workers: geomean +4%, high-cardinality GROUP BYs up to 1.35x); at 30 s no cost was measurable
     (bench/results/jemalloc-decay-2026-11-27.md). muzzy_decay_ms:0 releases pages once they leave
     the dirty state instead of keeping them lazily freed (MADV_FREE pages still count in RSS). */
const char* malloc_conf =
    "lg_extent_max_active_fit:8,oversize_threshold:0,background_thread:true,"
    "dirty_decay_ms:30000,muzzy_decay_ms:0";
