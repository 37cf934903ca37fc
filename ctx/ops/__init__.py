"""The operations layer of the core: one typed function per user-visible action (a principal
and a validated input model in, a wire payload out); every interface calls these."""
