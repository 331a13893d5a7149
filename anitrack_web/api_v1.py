"""(being written)"""


def add_routes(app, ctx):
    """Add this module's routes to *app*."""
