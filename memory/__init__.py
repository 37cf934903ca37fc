"""Memory formation: facts, preferences, decisions, tasks and entities drawn from conversations."""
