"""Test support: the pytest plugin that starts the embedded services, and test clients."""
