"""The operators' admin (an interface, like ctx/api): signed in with an API key, every page
under the operator's row-level-security context, every write one operation.

The pages are registered by `ctx.admin.pages`, which `ctx.apps.OperatorAdminConfig` imports
once the apps are ready; this package itself registers nothing, so importing the site class
(Django's lazy default site) cannot register pages on a site that is then replaced."""
