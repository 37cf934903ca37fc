"""Parsers of AI-tool conversation logs: local files in, normalised sessions and messages out.

Standard library only, Python >= 3.9: this runs in the `ctx` CLI on the user's machine. See
README.md beside this file for what each parser reads and skips.
"""
