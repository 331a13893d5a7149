"""The core's own plugins, registered through the same hooks as any other plugin."""
