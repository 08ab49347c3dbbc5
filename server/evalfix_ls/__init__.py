"""evalfix-ls: a language server and checker for AI-agent skill evaluation fixtures."""

__version__ = "0.1.0"
