"""ctx: a multi-tenant knowledge server that gives LLM agents a memory that lasts."""

__version__ = "0.1.0"
