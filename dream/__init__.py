"""Background consolidation: claims, link discovery, supersession, guard, digest."""
