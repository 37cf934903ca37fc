"""The UI's forms. They only shape text into an operation's input: bounds and rules live in
the operations' input models (ctx/ops/inputs.py), whose errors the pages show."""

from __future__ import annotations

import json
from typing import Any

from django import forms

from ctx.models import BlockType

TYPE_CHOICES = [(t, t) for t in BlockType.values]


class SignInForm(forms.Form):
    api_key = forms.CharField(
        label="API key",
        max_length=200,
        strip=True,
        widget=forms.PasswordInput(attrs={"autofocus": True, "autocomplete": "off"}),
    )


class EditForm(forms.Form):
    title = forms.CharField(max_length=500)
    category = forms.CharField(max_length=100)
    type = forms.ChoiceField(choices=TYPE_CHOICES)
    tags = forms.CharField(required=False, help_text="Comma-separated.")
    content = forms.CharField(widget=forms.Textarea(attrs={"rows": 14}), strip=False)
    metadata = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 4}), help_text="A JSON object."
    )
    valid_from = forms.CharField(required=False, help_text="ISO date or time; empty: none.")
    valid_to = forms.CharField(required=False, help_text="ISO date or time; empty: none.")

    @classmethod
    def of(cls, block: dict[str, Any]) -> EditForm:
        initial = {
            **{k: block[k] for k in ("title", "category", "type", "content")},
            "tags": ", ".join(block["tags"]),
            "metadata": json.dumps(block["metadata"], indent=2, ensure_ascii=False),
            "valid_from": block["valid_from"] or "",
            "valid_to": block["valid_to"] or "",
        }
        return cls(initial=initial)

    def clean_metadata(self) -> Any:
        text = self.cleaned_data["metadata"].strip()
        try:
            return json.loads(text) if text else {}
        except ValueError:
            raise forms.ValidationError("Not valid JSON.") from None

    def changes(self, block: dict[str, Any]) -> dict[str, Any]:
        """The fields that differ from the block as it is (an update changes only those)."""
        data = dict(self.cleaned_data)
        data["tags"] = [t.strip() for t in data["tags"].split(",") if t.strip()]
        for name in ("valid_from", "valid_to"):
            data[name] = data[name].strip() or None
        return {k: v for k, v in data.items() if v != block[k]}
