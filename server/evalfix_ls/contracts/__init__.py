"""The contracts: which one applies to a document, and the rules of each (one package per family)."""
