"""Run results: what a run of the suite said about each case, read back from the files the two
producers write (``specs/run-results.md``): arc-skill-eval's ``evals-runs/`` trees and Anthropic's
skill-creator ``<skill>-workspace/`` trees.

A second source, read-only, beside the analysis: nothing here is a finding, nothing changes
``--check``'s exit status. It sits on the floor of ``workspace/`` (it reads files, confined to the
repository, and knows no contract or protocol), so the batch mode and the language server share it.

* ``naming``: the case id → folder rule exactly as JavaScript computes it, iteration buckets,
  run-id ordering;
* ``reading``: tolerant, size-capped, confined JSON reads (a half-written file is "not yet");
* ``arc`` / ``skill_creator``: each producer's layouts;
* ``matching``: the graded copies against the assertions in the file now (stale marking);
* ``index``: the per-skill index, newest result per case, invalidated by path.
"""
