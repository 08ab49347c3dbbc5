// A run as arc-skill-eval writes it (specs/run-results.md), for the results suite to write during
// the session: `<skill>/evals-runs/<runId>/eval-<slug>/` with grading.json (one
// assertion_results[i] per assertions[i], the assertion copied in), timing.json, assistant.md and
// outputs/. Written with node:fs, as a run outside the editor writes it; the shapes of
// tests/results_trees.py, which writes the workspace's earlier runs.
import * as fs from "node:fs";
import * as path from "node:path";

/** A graded assertion: the assertion as written in evals.json, its verdict and the evidence. */
export type Row = [assertion: unknown, passed: boolean, evidence: string];

function dump(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n", "utf8");
}

export function grading(caseId: string, rows: Row[]): object {
  const passed = rows.filter(([, ok]) => ok).length;
  return {
    case_id: caseId,
    assertion_results: rows.map(([assertion, ok, evidence]) => ({
      text: typeof assertion === "string" ? assertion : JSON.stringify(assertion),
      passed: ok,
      evidence,
      assertion,
    })),
    summary: { passed, failed: rows.length - passed, total: rows.length, pass_rate: passed / rows.length },
  };
}

/** 41 s, 12.3k tokens, $0.12: the lens shows `41 s · 12.3k tokens · $0.12`. */
export const TIMING = {
  total_tokens: 12345,
  duration_ms: 41207,
  model: { provider: "anthropic", id: "claude-sonnet-4-5" },
  estimated_cost_usd: 0.1234,
};

/**
 * One run (`runDir`: `<skill>/evals-runs/<runId>`) holding `cases` (folder name → case id and
 * rows); grading.json is written last, whole, as a finished case is.
 */
export function arcRun(runDir: string, cases: Record<string, { id: string; rows: Row[] }>): void {
  for (const [folder, { id, rows }] of Object.entries(cases)) {
    const caseDir = path.join(runDir, folder);
    dump(path.join(caseDir, "timing.json"), TIMING);
    fs.mkdirSync(path.join(caseDir, "outputs"), { recursive: true });
    fs.writeFileSync(path.join(caseDir, "assistant.md"), `Hello from ${id}\n`, "utf8");
    dump(path.join(caseDir, "grading.json"), grading(id, rows));
  }
}
