"""JavaScript semantics the reference tools rely on: value conversions and RegExp validity."""
