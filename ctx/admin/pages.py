"""Every page of the operators' admin, registered on import (ctx.apps.OperatorAdminConfig)."""

from ctx.admin import blocks, dream, llm, overrides, sealed, tenancy  # noqa: F401 - registers
