"""The names of the commands the editing features attach (code lenses), apart from the services
that build them: the language server registers them before ``initialize`` without importing the
analysis core."""

from __future__ import annotations

CASE_COMMAND = "evalfix.caseCommand"  # [skill directory, case id] → the command line of that case
