"""What the benchmarks share, written once (see bench/README.md for the layout)."""
