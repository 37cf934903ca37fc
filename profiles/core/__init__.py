"""The pure core of preference profiles: no Django, no network; files only in `folder`."""
