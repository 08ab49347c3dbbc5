"""The evals.json contract (specs/evals-json.md): arc-skill-eval's loader, rule by rule."""
