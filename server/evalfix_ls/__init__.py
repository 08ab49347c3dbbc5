"""evalfix-ls: a language server and checker for AI-agent skill evaluation fixtures."""

# The one place of the version: the build (pyproject.toml, [tool.hatch.version]), `--version`,
# the JSON report and the SARIF tool driver all read it from here.
__version__ = "0.1.0"

# Where the project lives; SARIF's `informationUri` and the rules' help point here.
PROJECT_URL = "https://github.com/evalfix-ls/evalfix-ls"
