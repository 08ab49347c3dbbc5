"""Tools beside the benchmarks: they record, tap, profile or read traces, and measure nothing
themselves (see bench/README.md)."""
