"""Settings overrides: database and tenant layers over the live `CTX_*` knobs (docs/settings.md).

Each app declares its knobs (`<app>/knob_specs.py`, collected by `ctx.config`); `ctx.knobs.value`
is the one way to read a knob's effective value; this package adds the layers an admin may change
at run time (models, resolver, services, selectors, operations, admin).
"""
