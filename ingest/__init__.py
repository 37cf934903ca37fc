"""Conversation memory: AI tools' sessions imported, scrubbed, windowed into transcript blocks
and searchable (docs/conversations.md)."""
