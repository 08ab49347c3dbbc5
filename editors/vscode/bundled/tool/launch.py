"""Starts the evalfix-ls server that a platform package of the VS Code extension carries.

The extension runs `python -I bundled/tool/launch.py [args]` with an interpreter it found (the
Python extension's, else python3 / py -3): `-I` keeps the user's PYTHONPATH and user site out, and
the bundled libraries go first on sys.path, so the environment's own packages (an older pygls, say)
cannot shadow them. Runs on any Python; refuses the ones the server does not support with a line the
extension shows as the reason this interpreter was skipped.
"""

import os
import sys

MINIMUM = (3, 10)


def main() -> int:
    if sys.version_info < MINIMUM:
        found = ".".join(str(part) for part in sys.version_info[:3])
        sys.stderr.write(f"evalfix-ls needs Python >= 3.10; {sys.executable} is Python {found}\n")
        return 3
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(os.path.dirname(here), "libs"))
    from evalfix_ls.cli import main as server_main

    return server_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
