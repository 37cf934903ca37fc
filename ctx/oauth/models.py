"""Which ctx API key an OAuth grant acts as.

django-oauth-toolkit ties grants and tokens to a Django user. A person signs in on the consent
page with a ctx API key; the key gets one Django user (created on first sign-in) and this row
links them, so a token's principal is exactly that key's principal and a revoked key's tokens
stop working. The model is registered in the `ctx` app (its migrations live with the core
schema); this module is imported because `ctx.oauth` is an installed app.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiKeyUser(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ctx_api_key_link"
    )
    api_key = models.OneToOneField(
        "ctx.ApiKey", on_delete=models.CASCADE, related_name="oauth_user_link"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "ctx"

    def __str__(self) -> str:
        return f"oauth user of key {self.api_key_id}"
