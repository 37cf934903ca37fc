"""What every page of the operators' admin shares.

- `OperatorAdmin` lists only what the signed-in operator reaches (`visible`) and never saves a
  model itself: its forms are `OperationForm`s, whose validation *is* one call of an operation
  (ctx/ops, <app>/operations.py), so the operation's refusal lands on the form like any other
  error. Django's own model validation is skipped: it would check a second, weaker copy of the
  rules the operation already checks.
- Buttons on a change page (`object_actions`) and list actions call operations too.
- A secret created by an operation (an API key) is shown once, on the next page, and removed
  from the session as it is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from django import forms
from django.contrib import admin, messages
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import path, reverse

from ctx.admin.site import operator, principal_of
from ctx.errors import CtxError
from ctx.models import Scope
from ctx.permissions import is_server_admin
from ctx.principal import Principal
from ctx.selectors import int_pk
from ctx.shared import SHARED_SCOPE, SHARED_TENANT

SHOWN_ONCE = "ctx_admin_shown_once"


# --- forms -------------------------------------------------------------------------------------


class OperationForm(forms.ModelForm):
    """A form whose save is one operation, run when the form validates."""

    principal: Principal  # set by OperatorAdmin.get_form
    request: HttpRequest
    result: Any = None

    def operate(self, principal: Principal) -> Any:
        """Call the operation with `self.cleaned_data`; return its payload."""
        raise NotImplementedError

    def saved(self) -> Model:
        """The row the operation wrote, for the admin's log entry and redirect."""
        return self.instance

    def _post_clean(self) -> None:
        if self.errors:
            return
        try:
            self.result = self.operate(self.principal)
        except CtxError as exc:
            field = (exc.details or {}).get("field")
            self.add_error(field if field in self.fields else None, exc.message)


def is_shared(scope: Scope) -> bool:
    """The server-wide `shared` scope goes by its plain name for every tenant's keys."""
    return scope.name == SHARED_SCOPE and scope.tenant.name == SHARED_TENANT


def scope_label(scope: Scope, principal: Principal) -> str:
    """A scope as the operator names it: `tenant/scope` when it is another tenant's, plain
    `shared` for the server-wide scope (the name every key uses for it)."""
    if scope.tenant_id == principal.tenant_id or is_shared(scope):
        return scope.name
    return f"{scope.tenant.name}/{scope.name}"


class ScopeChoice(forms.ModelChoiceField):
    principal: Principal | None = None

    def label_from_instance(self, obj: Any) -> str:
        return scope_label(obj, self.principal) if self.principal else str(obj)


class ScopesChoice(forms.ModelMultipleChoiceField):
    principal: Principal | None = None

    def label_from_instance(self, obj: Any) -> str:
        return scope_label(obj, self.principal) if self.principal else str(obj)


def offer_scopes(form: forms.BaseForm, principal: Principal, ids: Iterable[int]) -> None:
    """Limit every scope field of `form` to the given scopes, labelled for the operator; a
    single-scope field starts on the key's home scope when it is offered (an operator with one
    scope would otherwise meet "This field is required" on the first save)."""
    offered = list(ids)
    choices = Scope.objects.filter(pk__in=offered).select_related("tenant")
    for field in form.fields.values():
        if isinstance(field, ScopeChoice | ScopesChoice):
            field.queryset = choices.order_by("tenant__name", "name")
            field.principal = principal
        if isinstance(field, ScopeChoice) and principal.home_scope_id in offered:
            field.initial = field.initial or principal.home_scope_id


def scope_name_for(principal: Principal, scope: Scope) -> str:
    """The name under which the principal's operations resolve this scope."""
    names = [n for n, sid in principal.scope_names.items() if sid == scope.pk]
    plain = [n for n in names if "/" not in n]
    return (plain or names or [f"{scope.tenant.name}/{scope.name}"])[0]


# --- filters -----------------------------------------------------------------------------------


class ScopeFilter(admin.SimpleListFilter):
    """The operator's readable scopes (never another tenant's scope names)."""

    title = "scope"
    parameter_name = "scope"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        p = operator(request)
        rows = Scope.objects.filter(pk__in=p.read_scope_ids).select_related("tenant")
        return [(str(s.pk), scope_label(s, p)) for s in rows.order_by("tenant__name", "name")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() is None:
            return queryset
        sid = int_pk(self.value())
        if sid is None or sid not in operator(request).read_scope_ids:
            return queryset.none()
        return queryset.filter(scope_id=sid)


# --- the admin base ----------------------------------------------------------------------------

ObjectAction = Callable[[Principal, Any], str]  # (operator, row) -> what to tell the operator


class OperatorAdmin(admin.ModelAdmin):
    add_form: ClassVar[type[OperationForm] | None] = None
    change_form: ClassVar[type[OperationForm] | None] = None
    server_admins_only: ClassVar[bool] = False
    # Buttons on the change page: verb -> (label, method name); POST only.
    object_actions: ClassVar[dict[str, tuple[str, str]]] = {}
    change_form_template = "ctx_admin/change_form.html"
    show_full_result_count = False  # a second COUNT(*) over every visible row per page

    def visible(self, principal: Principal, queryset: QuerySet[Any]) -> QuerySet[Any]:
        """The rows this operator reaches; everything else answers like a missing row."""
        raise NotImplementedError

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return self.visible(operator(request), super().get_queryset(request))

    # permissions: what the pages offer; the operations hold the actual rules

    def _reach(self, request: HttpRequest) -> bool:
        p = principal_of(request)
        return p is not None and (is_server_admin(p) or not self.server_admins_only)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._reach(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._reach(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return self._reach(request) and self.add_form is not None

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._reach(request) and self.change_form is not None

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    # forms run operations

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        chosen = self.change_form if obj is not None else self.add_form
        if chosen is not None and (obj is None or self.has_change_permission(request, obj)):
            kwargs["form"] = chosen
        form = super().get_form(request, obj, change, **kwargs)
        bound = {"principal": operator(request), "request": request}
        return type(form.__name__, (form,), bound)

    def save_form(self, request: HttpRequest, form: Any, change: bool) -> Any:
        if not isinstance(form, OperationForm):
            return form.instance
        request._ctx_result = form.result  # type: ignore[attr-defined]  # for response_add
        return form.saved()

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        """Nothing: the operation wrote the row while the form validated."""

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        """Nothing: relations are part of the operation's input."""

    # the change page: shown-once secrets and operation buttons

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = dict(extra_context or {})
        if request.method == "GET":
            context["shown_once"] = take_shown_once(request, f"{self.opts.label}:{object_id}")
            context["object_actions"] = self.offered_actions(request, object_id)
        return super().change_view(request, object_id, form_url, context)

    def offered_actions(self, request: HttpRequest, object_id: str) -> list[tuple[str, str]]:
        """(verb, label) of the buttons the change page shows for this row."""
        obj = self.get_object(request, object_id)
        if obj is None:
            return []
        return [(v, label) for v, (label, _) in self.object_actions.items() if self.offers(v, obj)]

    def offers(self, verb: str, obj: Any) -> bool:
        return True

    def get_urls(self) -> list[Any]:
        info = self.opts.app_label, self.opts.model_name
        own = [
            path(
                f"<path:object_id>/{verb}/",
                self.admin_site.admin_view(self._object_action(verb)),
                name=f"{info[0]}_{info[1]}_{verb}",
            )
            for verb in self.object_actions
        ]
        return own + super().get_urls()

    def _object_action(self, verb: str) -> Callable[..., HttpResponse]:
        method: ObjectAction = getattr(self, self.object_actions[verb][1])

        def view(request: HttpRequest, object_id: str) -> HttpResponse:
            if request.method != "POST":
                return HttpResponseNotAllowed(["POST"])
            obj = self.get_object(request, object_id)
            if obj is None:
                return self.missing(request, object_id)
            try:
                self.message_user(request, method(operator(request), obj), messages.SUCCESS)
            except CtxError as exc:
                self.message_user(request, exc.message, messages.ERROR)
            return HttpResponseRedirect(self.after_action_url(verb, obj))

        return view

    def after_action_url(self, verb: str, obj: Any) -> str:
        return self.change_url(obj.pk)

    def missing(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Django's own answer for a row that is not there: another tenant's row gets it too."""
        answer: HttpResponse = self._get_obj_does_not_exist_redirect(  # type: ignore[attr-defined]
            request, self.opts, object_id
        )
        return answer

    def change_url(self, pk: Any) -> str:
        return reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_change", args=[pk])

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        """Just the rows themselves: the delete operation decides what goes with them (and
        refuses what it must), so Django's collector neither lists nor vetoes anything."""
        return [str(o) for o in objs], {}, set(), []

    def changelist_url(self) -> str:
        return reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_changelist")

    def run_each(
        self, request: HttpRequest, rows: Iterable[Any], method: ObjectAction, done: str
    ) -> None:
        """A list action: the operation once per selected row; refusals are reported."""
        principal, count = operator(request), 0
        for row in rows:
            try:
                method(principal, row)
                count += 1
            except CtxError as exc:
                self.message_user(request, f"{row}: {exc.message}", messages.ERROR)
        if count:
            self.message_user(request, f"{done}: {count}.", messages.SUCCESS)


def result_of(request: HttpRequest) -> Any:
    """The payload of the operation this request's form ran."""
    return getattr(request, "_ctx_result", None)


def show_once(request: HttpRequest, obj: Model, label: str, secret: str) -> None:
    """Keep a new secret for exactly one view of `obj`'s change page, which removes it."""
    request.session[SHOWN_ONCE] = {
        "for": f"{obj._meta.label}:{obj.pk}",
        "label": label,
        "secret": secret,
    }


def take_shown_once(request: HttpRequest, for_: str) -> dict[str, str] | None:
    """The kept secret if it belongs to `for_`. Any change page drops it: it never outlives
    the page that follows its creation."""
    kept = request.session.pop(SHOWN_ONCE, None)
    return dict(kept) if kept and kept.get("for") == for_ else None
