"""How many examples a property test draws: its own number, times ``EVALFIX_PROPERTY_SCALE``.

The committed numbers keep the suite fast on every run; a conformance hunt raises them for one run
without editing a test (``EVALFIX_PROPERTY_SCALE=40 pytest tests/unit/test_workflow_properties.py``).
Hypothesis profiles cannot do it: a number written in ``@settings`` overrides the loaded profile's.
"""

from __future__ import annotations

import os

SCALE_VARIABLE = "EVALFIX_PROPERTY_SCALE"


def examples(committed: int) -> int:
    """``committed`` scaled by the environment variable (a positive number; anything else is 1)."""
    try:
        scale = float(os.environ.get(SCALE_VARIABLE, "1"))
    except ValueError:
        scale = 1.0
    return max(1, round(committed * scale)) if scale > 0 else committed
