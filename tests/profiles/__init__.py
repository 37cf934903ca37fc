"""Tests of the profiles core (pure: literal data, temporary folders, one real LLM)."""
