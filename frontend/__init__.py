"""The web UI, served by Django."""
