"""Drop-in integrations with inference engines, none of which needs the engine installed."""
