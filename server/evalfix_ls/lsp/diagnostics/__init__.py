"""Diagnostics: one result store serving push, pull and the workspace scan."""
