"""LongMemEval retrieval benchmark (see README.md beside this file)."""
