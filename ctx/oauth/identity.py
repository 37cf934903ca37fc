"""API key <-> Django user for OAuth grants (see ctx.oauth.models)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction

from ctx import selectors
from ctx.models import ApiKey, Tenant
from ctx.oauth.models import ApiKeyUser
from ctx.principal import Principal


def _username(key: ApiKey) -> str:
    # Readable in the admin's token list; the link row, not the name, is what counts.
    return f"ctx-key-{key.prefix}"


def user_for_key(key: ApiKey) -> AbstractBaseUser:
    """The Django user OAuth grants of this key belong to, created on first sign-in."""
    link = ApiKeyUser.objects.select_related("user").filter(api_key=key).first()
    if link is not None:
        return link.user
    try:
        with transaction.atomic():
            user, created = get_user_model().objects.get_or_create(username=_username(key))
            if created:
                user.set_unusable_password()  # signs in with the API key only, never a password
                user.save(update_fields=["password"])
            ApiKeyUser.objects.create(user=user, api_key=key)
            return user
    except IntegrityError:  # a concurrent first sign-in of the same key won
        return ApiKeyUser.objects.select_related("user").get(api_key=key).user


def active_link(user_id: int) -> ApiKeyUser | None:
    """The user's link to its key while the key is active and its tenant not suspended."""
    return (
        ApiKeyUser.objects.select_related("api_key__tenant")
        .filter(
            user_id=user_id,
            api_key__active=True,
            api_key__tenant__status=Tenant.Status.ACTIVE,
        )
        .first()
    )


def principal_for_user(user_id: int) -> Principal | None:
    """The principal of the key behind an OAuth user, or None if the key or tenant is off."""
    link = active_link(user_id)
    return selectors.principal_from_key(link.api_key) if link is not None else None
