"""Drop-in integrations with inference engines (re-exported from :mod:`drafting_config.runtime`)."""
