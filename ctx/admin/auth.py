"""Sign-in to the admin with an API key (there are no passwords in ctx): the login form and
the authentication backend behind `django.contrib.auth.login`."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.backends import BaseBackend
from django.contrib.auth.base_user import AbstractBaseUser
from django.http import HttpRequest

from ctx import operators
from ctx.errors import CtxError


class ApiKeyBackend(BaseBackend):
    """`authenticate(request, api_key=...)`: the Django user of an operator's key."""

    def authenticate(  # type: ignore[override]
        self, request: HttpRequest | None, api_key: str | None = None, **kwargs: Any
    ) -> AbstractBaseUser | None:
        if not api_key:
            return None
        try:
            return operators.sign_in(api_key)
        except CtxError as exc:
            if request is not None:
                request._ctx_sign_in_refusal = exc.message  # type: ignore[attr-defined]
            return None

    def get_user(self, user_id: Any) -> Any:
        # The key behind the user is checked on every admin request (ctx.admin.site).
        return get_user_model().objects.filter(pk=user_id, is_active=True).first()


class KeyLoginForm(forms.Form):
    """The admin's login form: one field, the API key (never rendered back)."""

    api_key = forms.CharField(
        label="API key",
        max_length=200,
        strip=True,
        widget=forms.PasswordInput(attrs={"autofocus": True, "autocomplete": "off"}),
        help_text="A key of a tenant owner or admin, or a server-admin key such as the "
        "bootstrap key that make run printed.",
    )

    def __init__(self, request: HttpRequest | None = None, *args: Any, **kwargs: Any) -> None:
        self.request = request
        self.user_cache: AbstractBaseUser | None = None
        super().__init__(*args, **kwargs)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        raw = data.get("api_key")
        if raw:
            self.user_cache = authenticate(self.request, api_key=raw)
            if self.user_cache is None:
                refusal = getattr(self.request, "_ctx_sign_in_refusal", operators.BAD_KEY)
                raise forms.ValidationError(refusal, code="invalid_login")
        return data

    def get_user(self) -> AbstractBaseUser | None:
        return self.user_cache
