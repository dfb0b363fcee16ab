"""What a draft's config says: the token-id resolution and the speculators translation."""
