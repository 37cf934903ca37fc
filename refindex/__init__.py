"""Indexed references: documents cut into `reference` blocks and searched as focused snippets."""
