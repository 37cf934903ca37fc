"""Binary attachments (blobs): files kept per scope behind Django's storage API (docs/api.md,
"Blobs"). Bytes leave the server only through the API, after the tenant check."""
