"""Benchmarks for evalfix-ls (see bench/README.md). They print figures; nothing here is a test."""
