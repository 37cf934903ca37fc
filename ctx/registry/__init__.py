"""The settings registry: database and tenant overrides of live `CTX_*` knobs (docs/settings.md).

`ctx.config` declares every knob once and parses the environment; this package adds the layers
an admin may change at run time (models, resolver, services, selectors, API, admin).
"""
