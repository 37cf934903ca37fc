"""Process management kept apart from the domain: the launcher behind `make run`, the embedded
PostgreSQL and Redis, and the secrets-module shadow fix-up that settings need before Django."""
