"""The workflow eval fixture contract (specs/workflow-fixtures.md): spec-first's normalizer."""
